import { join } from 'node:path';
import type { Config } from '../../config.ts';
import type { Db } from './types.ts';

export * from './types.ts';

export async function openDb(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'pgliteThread'>): Promise<Db> {
  if (config.databaseUrl) {
    // node-postgres (~30 modules) loads only where PostgreSQL is the database.
    const { PostgresDb } = await import('./postgres.ts');
    return new PostgresDb(config.databaseUrl);
  }
  const dataDir = join(config.dataDir, 'pglite');
  if (config.pgliteThread === 'worker') {
    // Only the worker thread imports PGlite: the main thread does not carry its WASM module.
    const { PgliteThreadDb } = await import('./pglite-thread.ts');
    return PgliteThreadDb.open({ dataDir });
  }
  // PGlite (WASM) adds ~40 MB to the process on import: loaded only when it is the database.
  const { PgliteDb } = await import('./pglite.ts');
  return PgliteDb.open({ dataDir });
}
export { prepared } from './prepared.ts';
export { organizationPage } from './keyset.ts';
