import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parsePgliteThread } from '../../src/config.ts';
import { PgliteDb } from '../../src/platform/db/pglite.ts';
import { PgliteThreadDb } from '../../src/platform/db/pglite-thread.ts';
import { PostgresDb } from '../../src/platform/db/postgres.ts';
import type { Db } from '../../src/platform/db/index.ts';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/db/migrate.ts';

const SEED_DIR = join(import.meta.dirname, '..', '..', 'src', 'seed');
const CATALOG_DIR = join(import.meta.dirname, '..', '..', 'src', 'modules', 'catalog');

/** Templates are rebuilt whenever a migration, the seed code or the catalog module (device table included) changes. */
export function templateDigest(): string {
  const h = createHash('sha256');
  // The catalog module draws the seed's layers and derives its stages: its code is seed too.
  for (const dir of [MIGRATIONS_DIR, SEED_DIR, CATALOG_DIR]) {
    for (const f of readdirSync(dir)
      .filter((f) => /\.(ts|json|sql)$/.test(f))
      .sort())
      h.update(f).update(readFileSync(join(dir, f)));
  }
  return h.digest('hex').slice(0, 12);
}

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || null;

/**
 * A fresh database per test file, cloned from a migrated and seeded template: a PGlite data-dir
 * dump in the temp folder, or a PostgreSQL template database when TEST_DATABASE_URL is set.
 */
export async function cloneTestDb(
  seed: (db: Db) => Promise<void>,
  rebuild = false,
): Promise<{ db: Db; drop: () => Promise<void> }> {
  return testDatabaseUrl ? clonePostgres(testDatabaseUrl, seed, rebuild) : clonePglite(seed, rebuild);
}

async function clonePglite(seed: (db: Db) => Promise<void>, rebuild: boolean) {
  const file = join(tmpdir(), `pod-api-template-${templateDigest()}.tar`);
  if (rebuild || !existsSync(file)) {
    const db = await PgliteDb.open({});
    await migrate(db);
    await seed(db);
    const dump = await db.pg.dumpDataDir('none');
    await db.close();
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, file);
  }
  // The clone runs where the service's embedded database runs (PGLITE_THREAD, a worker by default).
  const db: Db =
    parsePgliteThread(process.env.PGLITE_THREAD) === 'worker'
      ? await PgliteThreadDb.open({ loadDataDir: new Uint8Array(readFileSync(file)) })
      : await PgliteDb.open({ loadDataDir: new Blob([readFileSync(file)]) });
  return { db, drop: () => db.close() };
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function clonePostgres(url: string, seed: (db: Db) => Promise<void>, rebuild: boolean) {
  const template = `pod_tpl_${templateDigest()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(727275)');
    if (rebuild) await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${template}`);
      const db = new PostgresDb(withDatabase(url, template), 2);
      try {
        await migrate(db);
        await seed(db);
      } finally {
        await db.close();
      }
    }
    const name = `pod_test_${randomBytes(6).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await admin.query('SELECT pg_advisory_unlock(727275)');
    const db = new PostgresDb(withDatabase(url, name), 5);
    return {
      db: db as Db,
      drop: async () => {
        await db.close();
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
        await c.end();
      },
    };
  } finally {
    await admin.end();
  }
}
