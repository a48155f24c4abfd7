import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PgliteDb } from '../../src/platform/db/pglite.ts';
import { PgliteThreadDb } from '../../src/platform/db/pglite-thread.ts';
import { PostgresDb } from '../../src/platform/db/postgres.ts';
import { type Db, PG_UNIQUE_VIOLATION, pgErrorCode, together } from '../../src/platform/db/types.ts';
import { testDatabaseUrl } from '../support/db.ts';

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const failLater = (ms: number, message: string) =>
  new Promise<never>((_, reject) => setTimeout(() => reject(new Error(message)), ms));

describe('together', () => {
  it('gives every result in the order given', async () => {
    assert.deepEqual(await together(later(20, 'a'), later(1, 2), Promise.resolve(null)), ['a', 2, null]);
  });

  it('throws the first failure in time, not in the order given', async () => {
    await assert.rejects(together(failLater(30, 'second'), failLater(5, 'first')), /first/);
  });

  it('waits for the others before it throws', async () => {
    let finished = false;
    const slow = later(40, 'slow').then((v) => {
      finished = true;
      return v;
    });
    await assert.rejects(together(Promise.reject(new Error('at once')), slow), /at once/);
    assert.equal(finished, true);
  });
});

const databases: Array<[string, () => Promise<{ db: Db; done: () => void }>]> = [
  ['PGlite, worker thread', () => embedded((dir) => PgliteThreadDb.open({ dataDir: dir }))],
  ['PGlite, inline', () => embedded((dir) => PgliteDb.open({ dataDir: dir }))],
  ['PostgreSQL', async () => ({ db: new PostgresDb(testDatabaseUrl!), done: () => {} })],
];

async function embedded(open: (dir: string) => Promise<Db>) {
  const dir = mkdtempSync(join(tmpdir(), 'pod-together-'));
  return { db: await open(dir), done: () => rmSync(dir, { recursive: true, force: true }) };
}

for (const [name, open] of databases) {
  const skip = name === 'PostgreSQL' && !testDatabaseUrl ? 'TEST_DATABASE_URL is not set' : false;
  describe(`together in a transaction (${name})`, { skip }, () => {
    const table = `together_${process.pid}_${Date.now()}`;
    let db: Db;
    let done = () => {};
    const warnings: string[] = [];
    const heard = (w: Error) => warnings.push(w.message);
    before(async () => {
      process.on('warning', heard);
      ({ db, done } = await open());
      await db.exec(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
    });
    after(async () => {
      process.off('warning', heard);
      await db?.exec(`DROP TABLE IF EXISTS ${table}`);
      await db?.close();
      done();
    });

    it('runs statements sent together, and returns each one its rows', async () => {
      const [a, b] = await db.tx((tx) =>
        together(
          tx.query<{ id: number }>(`INSERT INTO ${table} (id) VALUES (1), (2) RETURNING id`),
          tx.query<{ n: number }>('SELECT 41 + 1 AS n'),
        ),
      );
      assert.deepEqual(
        a.map((r) => r.id),
        [1, 2],
      );
      assert.equal(b[0].n, 42);
    });

    it('reports the statement that failed, not the ones the aborted transaction refused, and keeps nothing', async () => {
      await assert.rejects(
        db.tx((tx) =>
          together(
            // A chain given first whose second statement goes after the failing one, as the stock's
            // does in an order batch: it fails too, but only because the transaction is aborted.
            (async () => {
              await tx.query(`INSERT INTO ${table} (id) VALUES (3)`);
              return tx.query(`INSERT INTO ${table} (id) VALUES (4)`);
            })(),
            tx.query(`INSERT INTO ${table} (id) VALUES (1)`),
          ),
        ),
        (err) => pgErrorCode(err) === PG_UNIQUE_VIOLATION,
      );
      const rows = await db.query<{ id: number }>(`SELECT id FROM ${table} ORDER BY id`);
      assert.deepEqual(
        rows.map((r) => r.id),
        [1, 2],
      );
    });

    it('hands the connection one statement at a time, so the driver warns of none sent while another runs', async () => {
      const slept = await db.tx((tx) =>
        together(
          ...[3, 1, 2].map((n) => tx.query<{ n: number }>('SELECT $1::int AS n, pg_sleep(0.01)::text AS s', [n])),
        ),
      );
      assert.deepEqual(
        slept.map(([r]) => r.n),
        [3, 1, 2],
      );
      await new Promise((resolve) => setImmediate(resolve)); // process warnings are emitted on the next tick
      assert.deepEqual(
        warnings.filter((w) => /already executing a query/.test(w)),
        [],
      );
    });
  });
}
