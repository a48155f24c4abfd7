import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
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

/** A clone of the template, with what the template's seed returned (kept with the template). */
export interface TestDb<T> {
  db: Db;
  drop: () => Promise<void>;
  seeded: T;
}

/**
 * A fresh database per test file, cloned from a migrated and seeded template: a PGlite data
 * directory in the temp folder, copied to one of the file's own, or a PostgreSQL template database
 * when TEST_DATABASE_URL is set. The seed runs once per template; its result (JSON) is stored as the
 * template database's comment, so a clone and the result it is read with always come from the same
 * seeding.
 *
 * `rebuild` says whether the template must be made anew. It is asked once the template's lock is
 * held (an advisory lock on PostgreSQL, a lock file beside the PGlite template): files that start
 * together all find the template missing, and only the first makes it; the others, asking after
 * it, find what it made.
 */
export async function cloneTestDb<T>(
  seed: (db: Db) => Promise<T>,
  rebuild: () => boolean = () => false,
): Promise<TestDb<T>> {
  return testDatabaseUrl ? clonePostgres(testDatabaseUrl, seed, rebuild) : clonePglite(seed, rebuild);
}

/** The template database's comment: this prefix, then the seed's result as JSON. */
const SEED_PREFIX = 'pod-api test seed: ';
const commentOn = (database: string, value: unknown) =>
  `COMMENT ON DATABASE ${database} IS '${(SEED_PREFIX + JSON.stringify(value)).replaceAll("'", "''")}'`;

/** What the template's seed returned, as JSON; null when the database holds none. */
async function seededOf(q: (sql: string, params: unknown[]) => Promise<Array<Record<string, unknown>>>, name: string) {
  const [row] = await q("SELECT shobj_description(oid, 'pg_database') AS c FROM pg_database WHERE datname = $1", [
    name,
  ]);
  const c = row?.c;
  return typeof c === 'string' && c.startsWith(SEED_PREFIX) ? c.slice(SEED_PREFIX.length) : null;
}

/**
 * A template build: a directory beside the template's link, named `<link>.<pid>.<random>`. The link
 * names the finished one; a build a killed run left unfinished was never linked.
 */
const buildOf = (link: string, name: string) =>
  name.startsWith(`${basename(link)}.`) && /\.\d+\.[0-9a-f]{8}$/.test(name);

/**
 * Builds the template in a directory of its own, then points the link at it (a rename: files that
 * clone meanwhile copy either the previous build or this one, whole). Builds neither linked nor
 * being built go first: a killed run's, and the one before the link's current build.
 */
async function buildPgliteTemplate(link: string, seed: (db: Db) => Promise<unknown>): Promise<void> {
  const current = existsSync(link) ? realpathSync(link) : null;
  for (const name of readdirSync(dirname(link)))
    if (buildOf(link, name) && join(dirname(link), name) !== current)
      rmSync(join(dirname(link), name), { recursive: true, force: true });
  const dir = `${link}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const db = await PgliteDb.open({ dataDir: dir });
  try {
    await migrate(db);
    await db.exec(commentOn('postgres', await seed(db)));
  } finally {
    await db.close();
  }
  symlinkSync(dir, `${dir}.link`);
  renameSync(`${dir}.link`, link);
}

/** Whether a process runs (one of another user: yes). */
function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process whose pid a lock file holds still runs (a file still being written: yes). */
function holderRuns(lock: string): boolean {
  try {
    const pid = Number(readFileSync(lock, 'utf8'));
    return !pid || pidRuns(pid);
  } catch (err) {
    // Removed meanwhile: the next attempt takes it.
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Runs `fn` holding `lock` (a file with this process's pid); a lock whose process has exited is taken over. */
async function withLockFile<R>(lock: string, fn: () => Promise<R>): Promise<R> {
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (holderRuns(lock)) await new Promise((r) => setTimeout(r, 250));
      else rmSync(lock, { force: true });
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** A clone's directory: `pod-api-db-<pid>-<random>`, so that one left by a killed test file can be told. */
const CLONE_PREFIX = 'pod-api-db-';

/** Clones whose test file's process has exited without dropping them (killed): ~46 MB each. */
function removeOrphanClones(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = name.startsWith(CLONE_PREFIX) ? Number(name.slice(CLONE_PREFIX.length).split('-')[0]) : 0;
    if (pid && !pidRuns(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/** A copy of the template's current build, opened where the service's embedded database runs. */
async function openClone(link: string): Promise<{ db: Db; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), `${CLONE_PREFIX}${process.pid}-`));
  try {
    // cp, not fs.cpSync: as much CPU or less, and its files are removed in a tenth of the time (drop).
    await promisify(execFile)('cp', ['-a', `${realpathSync(link)}/.`, dir]);
    // A linked build is closed, so it holds no pid file; should one appear, PGlite starts over it anyway.
    rmSync(join(dir, 'postmaster.pid'), { force: true });
    const db: Db =
      parsePgliteThread(process.env.PGLITE_THREAD) === 'worker'
        ? await PgliteThreadDb.open({ dataDir: dir })
        : await PgliteDb.open({ dataDir: dir });
    return { db, dir };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function clonePglite<T>(seed: (db: Db) => Promise<T>, rebuild: () => boolean): Promise<TestDb<T>> {
  const link = join(tmpdir(), `pod-api-template-${templateDigest()}`);
  removeOrphanClones();
  let forced = false;
  const needed = () => forced || rebuild() || !existsSync(link);
  for (let attempt = 0; ; attempt++) {
    if (needed())
      await withLockFile(`${link}.lock`, async () => {
        if (needed()) await buildPgliteTemplate(link, seed);
      });
    const { db, dir } = await openClone(link);
    const drop = async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    };
    const seeded = await seededOf((sql, params) => db.query(sql, params), 'postgres');
    if (seeded !== null) return { db, drop, seeded: JSON.parse(seeded) as T };
    // A template without its seed result: made anew, once.
    await drop();
    if (attempt > 0) throw new Error(`the test template ${link} holds no seed result`);
    forced = true;
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function clonePostgres<T>(url: string, seed: (db: Db) => Promise<T>, rebuild: () => boolean): Promise<TestDb<T>> {
  const template = `pod_tpl_${templateDigest()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(727275)');
    let seeded = rebuild()
      ? null
      : await seededOf(async (sql, params) => (await admin.query(sql, params)).rows, template);
    if (seeded === null) {
      // Missing, asked to be made anew, or made without its seed result.
      await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${template}`);
      const db = new PostgresDb(withDatabase(url, template), 2);
      try {
        await migrate(db);
        const value = await seed(db);
        seeded = JSON.stringify(value);
        await admin.query(commentOn(template, value));
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
      seeded: JSON.parse(seeded) as T,
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
