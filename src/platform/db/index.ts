import { join } from 'node:path';
import type { Config } from '../../config.ts';
import { PostgresDb } from './postgres.ts';
import type { Db } from './types.ts';

export * from './types.ts';

export async function openDb(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Db> {
  if (config.databaseUrl) return new PostgresDb(config.databaseUrl);
  // PGlite (WASM) adds ~40 MB to the process on import: loaded only when it is the database.
  const { PgliteDb } = await import('./pglite.ts');
  return PgliteDb.open({ dataDir: join(config.dataDir, 'pglite') });
}
export { prepared } from './prepared.ts';
export { organizationPage } from './keyset.ts';
