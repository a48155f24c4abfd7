import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PgliteThreadDb } from '../../src/platform/db/pglite-thread.ts';
import { isFromDatabase, PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode } from '../../src/platform/db/types.ts';

// One database for the whole file, on disk: starting PGlite (initdb) takes seconds.
describe('the embedded database on its worker thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pod-pglite-thread-'));
  let db: PgliteThreadDb;
  before(async () => {
    db = await PgliteThreadDb.open({ dataDir: dir });
    await db.exec(`CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL CONSTRAINT items_name UNIQUE);
      CREATE TABLE log (n int)`);
  });
  after(async () => {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers queries with their rows and types', async () => {
    const [row] = await db.query(
      `SELECT 1::int AS n, 'a'::text AS s, '{"k":[1]}'::jsonb AS j, now() AS t, '\\x0102'::bytea AS b, $1::text AS p`,
      ['param'],
    );
    assert.equal(row.n, 1);
    assert.deepEqual(row.j, { k: [1] });
    assert.ok(row.t instanceof Date);
    assert.deepEqual([...row.b], [1, 2]);
    assert.equal(row.p, 'param');
  });

  it('runs with a small young generation: its garbage dies within a statement', () => {
    // V8's default grows the thread's young generation to 32 MB and more, resident for good.
    const limits = (db as unknown as { worker: { resourceLimits: { maxYoungGenerationSizeMb: number } } }).worker
      .resourceLimits;
    assert.ok(limits.maxYoungGenerationSizeMb > 0 && limits.maxYoungGenerationSizeMb <= 8, JSON.stringify(limits));
  });

  it('keeps statements prepared: a table changed under one, a failed one, more texts than the cache holds', async () => {
    await db.exec('CREATE TABLE shapes (id int PRIMARY KEY)');
    await db.query('INSERT INTO shapes VALUES ($1)', [1]);
    const all = 'SELECT * FROM shapes WHERE id = $1';
    assert.deepEqual(await db.query(all, [1]), [{ id: 1 }]);
    // A migration adds a column: the prepared `SELECT *` fails once, then is prepared anew.
    await db.exec("ALTER TABLE shapes ADD COLUMN label text NOT NULL DEFAULT 'x'");
    const first = await db.query(all, [1]).then(
      (rows) => rows,
      (err: unknown) => err,
    );
    if (!Array.isArray(first)) assert.equal(pgErrorCode(first), '0A000');
    assert.deepEqual(await db.query(all, [1]), [{ id: 1, label: 'x' }]);
    // A statement that never prepared (syntax error) stays an error and leaves nothing behind.
    await assert.rejects(db.query('SELEC nothing'), (e: unknown) => isFromDatabase(e));
    await assert.rejects(db.query('SELEC nothing'), (e: unknown) => isFromDatabase(e));
    // Optional parameters answer right with and without their value (custom plans per run).
    const optional = 'SELECT count(*)::int AS n FROM shapes WHERE ($1::int IS NULL OR id = $1)';
    for (let i = 0; i < 8; i++) assert.equal((await db.query(optional, [i % 2 ? null : 2]))[0].n, i % 2 ? 1 : 0);
    // Past the cache's size the least recently used statements are closed; every text still runs.
    for (let i = 0; i < 600; i++) assert.equal((await db.query(`SELECT ${i}::int + $1::int AS n`, [1]))[0].n, i + 1);
    assert.deepEqual(await db.query(all, [1]), [{ id: 1, label: 'x' }]);
  });

  it('sends every kind of parameter the service uses, the same statement again from its cached types', async () => {
    await db.exec('CREATE TABLE params (id text PRIMARY KEY, doc jsonb, at timestamptz, raw bytea, n int, ok boolean)');
    const at = new Date('2026-11-24T12:00:00.000Z');
    const insert =
      'INSERT INTO params SELECT * FROM unnest($1::text[], $2::jsonb[], $3::timestamptz[], $4::bytea[], $5::int[], $6::boolean[]) RETURNING id';
    for (const id of ['a', 'b'])
      await db.query(insert, [[id], [JSON.stringify({ k: [id] })], [at], [Buffer.from([9, 8])], [7], [true]]);
    await db.query('INSERT INTO params (id, doc, at, raw, n, ok) VALUES ($1, $2, $3, $4, $5, $6)', [
      'c',
      { k: ['c'] },
      at,
      Buffer.from([1]),
      null,
      false,
    ]);
    const rows = await db.query('SELECT * FROM params ORDER BY id');
    assert.deepEqual(
      rows.map((r) => [r.id, r.doc, r.at.toISOString(), [...r.raw], r.n, r.ok]),
      [
        ['a', { k: ['a'] }, at.toISOString(), [9, 8], 7, true],
        ['b', { k: ['b'] }, at.toISOString(), [9, 8], 7, true],
        ['c', { k: ['c'] }, at.toISOString(), [1], null, false],
      ],
    );
  });

  it('keeps PostgreSQL’s error fields, so unique violations and the error handler work as on one thread', async () => {
    await db.query(`INSERT INTO items VALUES (1, 'one')`);
    const err = await db.query(`INSERT INTO items VALUES (2, 'one')`).catch((e) => e);
    assert.ok(err instanceof Error);
    assert.equal(pgErrorCode(err), PG_UNIQUE_VIOLATION);
    assert.equal(pgConstraint(err), 'items_name');
    assert.match(err.message, /duplicate key/);
    assert.ok(isFromDatabase(err));
    const syntax = await db.query('SELEC 1').catch((e) => e);
    assert.equal(pgErrorCode(syntax), '42601');
  });

  it('commits a transaction as a whole, and nothing outside it runs in between', async () => {
    const order: string[] = [];
    const inside = db.tx(async (tx) => {
      await tx.query('INSERT INTO log VALUES (1)');
      order.push('tx first');
      // Sent while the transaction is open: it must wait for the commit, not see a half-done state.
      outside = db.query<{ c: number }>('SELECT count(*)::int AS c FROM log').then((rows) => {
        order.push('outside');
        return rows[0].c;
      });
      await new Promise((r) => setTimeout(r, 50));
      await tx.query('INSERT INTO log VALUES (2)');
      order.push('tx second');
    });
    let outside: Promise<number> = Promise.resolve(-1);
    await inside;
    assert.equal(await outside, 2);
    assert.deepEqual(order, ['tx first', 'tx second', 'outside']);
  });

  it('rolls back everything when the function throws, and rethrows its error', async () => {
    const err = await db
      .tx(async (tx) => {
        await tx.query(`INSERT INTO items VALUES (10, 'ten')`);
        throw new Error('changed my mind');
      })
      .catch((e) => e);
    assert.equal(err.message, 'changed my mind');
    assert.deepEqual(await db.query('SELECT * FROM items WHERE id = 10'), []);
  });

  it('rolls back after a failed statement, with the database error', async () => {
    const err = await db
      .tx(async (tx) => {
        await tx.query(`INSERT INTO items VALUES (11, 'eleven')`);
        await tx.query(`INSERT INTO items VALUES (12, 'one')`);
      })
      .catch((e) => e);
    assert.equal(pgErrorCode(err), PG_UNIQUE_VIOLATION);
    assert.deepEqual(await db.query('SELECT * FROM items WHERE id IN (11, 12)'), []);
  });

  it('refuses a statement on a transaction that has ended', async () => {
    let kept: { query: (sql: string) => Promise<unknown> } | null = null;
    await db.tx(async (tx) => {
      kept = tx;
    });
    await assert.rejects(kept!.query('SELECT 1'), /Transaction is closed/);
  });

  it('refuses a parameter that cannot be sent to the thread, and keeps working', async () => {
    await assert.rejects(db.query('SELECT $1::text', [() => 1]));
    assert.deepEqual(await db.query('SELECT 1::int AS one'), [{ one: 1 }]);
  });

  it('runs concurrent transactions one after the other', async () => {
    await Promise.all(
      [20, 21, 22, 23].map((id) =>
        db.tx(async (tx) => {
          const [{ c }] = await tx.query<{ c: number }>('SELECT count(*)::int AS c FROM items');
          await tx.query('INSERT INTO items VALUES ($1, $2)', [id, `n${c}`]);
        }),
      ),
    );
    const names = (await db.query<{ name: string }>('SELECT name FROM items WHERE id >= 20 ORDER BY id')).map(
      (r) => r.name,
    );
    // Each saw the one before it committed: the counts are distinct.
    assert.equal(new Set(names).size, 4);
  });

  it('holds statements sent behind a begin until their transaction has begun, and ends one that never ran', async () => {
    let release = () => {};
    const holding = db.tx(async (tx) => {
      await tx.query(`INSERT INTO items VALUES (30, 'held')`);
      await new Promise<void>((r) => (release = r));
    });
    // Sent while `holding` is open: its begin and first statement wait on the worker.
    const waiting = db.tx((tx) => tx.query<{ c: number }>('SELECT count(*)::int AS c FROM items WHERE id = 30'));
    const empty = db.tx(async () => 'nothing');
    const abandoned = db.tx(async () => {
      throw new Error('before it began');
    });
    setTimeout(() => release(), 30);
    await holding;
    assert.deepEqual(await waiting, [{ c: 1 }]);
    assert.equal(await empty, 'nothing');
    await assert.rejects(abandoned, /before it began/);
    assert.deepEqual(await db.query('SELECT 1::int AS one'), [{ one: 1 }]);
  });

  // The worker remembers each file's size until it changes (nodefs-sizes.ts). A size remembered
  // wrong shows here: a scan reads a relation up to the size it is told, so rows go missing or a
  // read past the end fails.
  it('reads every row through growth, vacuum truncation, TRUNCATE, rewrite and reopening', async () => {
    const expect = async (count: number, sum: number) => {
      const [row] = await db.query('SELECT count(*)::int AS count, coalesce(sum(id), 0)::int AS sum FROM big');
      assert.deepEqual(row, { count, sum });
    };
    const total = (from: number, to: number) => ((from + to) * (to - from + 1)) / 2;
    await db.exec('CREATE TABLE big (id int, pad text)');
    for (let i = 0; i < 8; i++) {
      await db.query(`INSERT INTO big SELECT g, repeat('x', 300) FROM generate_series($1::int, $2::int) g`, [
        i * 2000 + 1,
        (i + 1) * 2000,
      ]);
      await expect((i + 1) * 2000, total(1, (i + 1) * 2000));
    }
    const size = async () => Number((await db.query(`SELECT pg_relation_size('big') AS n`))[0].n);
    const grown = await size();
    await db.exec('DELETE FROM big WHERE id > 8000');
    await db.exec('VACUUM big');
    assert.ok((await size()) < grown, 'the vacuum cut the emptied end off the file');
    await expect(8000, total(1, 8000));
    await db.query(`INSERT INTO big SELECT g, repeat('y', 300) FROM generate_series(8001, 9000) g`);
    await expect(9000, total(1, 9000));
    await db.exec('CREATE INDEX big_id ON big (id)');
    assert.deepEqual(await db.query('SELECT id FROM big WHERE id = 8500'), [{ id: 8500 }]);
    await db.exec('TRUNCATE big');
    await expect(0, 0);
    await db.query(`INSERT INTO big SELECT g, repeat('z', 300) FROM generate_series(1, 3000) g`);
    await db.exec('DELETE FROM big WHERE id <= 1000');
    await db.exec('VACUUM FULL big');
    await expect(2000, total(1001, 3000));
    await db.close();
    db = await PgliteThreadDb.open({ dataDir: dir });
    await expect(2000, total(1001, 3000));
    await db.query(`INSERT INTO big SELECT g, repeat('w', 300) FROM generate_series(3001, 6000) g`);
    await expect(5000, total(1001, 6000));
    await db.exec('DROP TABLE big');
  });

  it('closes the worker, refuses statements after, and the data directory opens again with the data', async () => {
    await db.close();
    await db.close();
    await assert.rejects(db.query('SELECT 1'), (err: Error) => pgErrorCode(err) === '08006');
    db = await PgliteThreadDb.open({ dataDir: dir });
    assert.deepEqual(await db.query('SELECT id FROM items WHERE id = 1'), [{ id: 1 }]);
  });
});
