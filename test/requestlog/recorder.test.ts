import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unpack } from '../../src/modules/requestlog/packed.ts';
import { RequestLog } from '../../src/modules/requestlog/recorder.ts';
import { redact } from '../../src/modules/requestlog/redact.ts';

describe('request log recorder', () => {
  const record = (i: number) => ({
    requestId: `r${i}`,
    organizationId: 'Organization_x',
    keyId: null,
    method: 'GET',
    path: '/v2/x',
    status: 200,
    latencyMs: 1,
    errorCode: null,
    requestBody: null,
    responseBody: null,
    at: Date.now(),
  });
  const silent = { warn: () => {} } as never;

  it('writes one batch row per organization in one INSERT, with two statement texts for any size', async () => {
    const statements: Array<{ sql: string; params: unknown[] }> = [];
    const db = {
      query: async (sql: string, params: unknown[]) => {
        statements.push({ sql, params });
        return [];
      },
    };
    const log = new RequestLog({ db: db as never, log: silent, writeRows: 3, flushMs: 60_000 });
    for (let i = 0; i < 4; i++) log.record(record(i));
    log.record({ ...record(4), organizationId: 'Organization_y' });
    await log.flush();
    log.record({ ...record(5), organizationId: 'Organization_y' });
    await log.flush();
    assert.equal(statements.length, 3);
    for (const s of statements) assert.match(s.sql, /synchronous_commit/, 'the log never waits for a disk flush');
    // One organization alone: plain parameters, the same text every time (one prepared statement).
    assert.equal(statements[0].sql, statements[2].sql);
    assert.doesNotMatch(statements[0].sql, /unnest/);
    assert.equal(statements[0].params[0], 'Organization_x');
    assert.deepEqual(
      unpack(statements[0].params[2] as Buffer).map((e) => e[0]),
      ['r0', 'r1', 'r2'],
    );
    assert.equal(statements[2].params[0], 'Organization_y');
    // Several organizations: one row each, cut in SQL from one bytea at 1-based offsets.
    assert.match(statements[1].sql, /unnest/);
    assert.deepEqual(statements[1].params[0], ['Organization_x', 'Organization_y']);
    const [all, starts, lengths] = statements[1].params.slice(2) as [Buffer, number[], number[]];
    assert.deepEqual(
      starts.map((s, i) => unpack(all.subarray(s - 1, s - 1 + lengths[i])).map((e) => e[0])),
      [['r3'], ['r4']],
      'one packed batch per organization, cut in SQL',
    );
    assert.equal(
      lengths.reduce((n, l) => n + l, 0),
      all.length,
    );
  });

  it('writes an error with its bodies in the same transaction as its batch', async () => {
    const statements: Array<{ sql: string; params: unknown[] }> = [];
    const ex = {
      query: async (sql: string, params: unknown[] = []) => {
        statements.push({ sql, params });
        return sql.includes('RETURNING') ? [{ id: '7', organization_id: 'Organization_x' }] : [];
      },
    };
    const db = { ...ex, tx: (fn: (e: typeof ex) => Promise<unknown>) => fn(ex) };
    const log = new RequestLog({ db: db as never, log: silent, flushMs: 60_000 });
    log.record(record(0));
    log.record({ ...record(1), status: 422, requestBody: { a: 1 }, responseBody: { code: 'x' } });
    await log.flush();
    assert.equal(statements.length, 3);
    assert.match(statements[0].sql, /SET LOCAL synchronous_commit = off/);
    assert.match(statements[2].sql, /INSERT INTO request_log_errors/);
    assert.deepEqual(statements[2].params[0], ['7001'], 'batch 7, second request');
    assert.deepEqual(statements[2].params[3], ['{"a":1}']);
  });

  it('writes the full batches of a busy organization together, each error under its own batch', async () => {
    const statements: Array<{ sql: string; params: unknown[] }> = [];
    const ex = {
      query: async (sql: string, params: unknown[] = []) => {
        statements.push({ sql, params });
        // Ids come back in any order: x's batches got 11 and 13, y's 12.
        return sql.includes('RETURNING')
          ? [
              { id: '13', organization_id: 'Organization_x' },
              { id: '12', organization_id: 'Organization_y' },
              { id: '11', organization_id: 'Organization_x' },
            ]
          : [];
      },
    };
    const db = { ...ex, tx: (fn: (e: typeof ex) => Promise<unknown>) => fn(ex) };
    const log = new RequestLog({ db: db as never, log: silent, batchRows: 2, writeRows: 5, flushMs: 60_000 });
    const failed = (i: number) => ({ ...record(i), status: 500, responseBody: { code: `e${i}` } });
    log.record(record(0));
    log.record(failed(1));
    log.record({ ...record(2), organizationId: 'Organization_y' });
    log.record(failed(3));
    assert.equal(statements.length, 0, 'four rows wait for the fifth');
    log.record(record(4));
    await log.flush();
    const insert = statements.find((x) => x.sql.includes('INSERT INTO request_log_batches'))!;
    assert.deepEqual(insert.params[0], ['Organization_x', 'Organization_x', 'Organization_y']);
    const [all, starts, lengths] = insert.params.slice(2) as [Buffer, number[], number[]];
    assert.deepEqual(
      starts.map((st, i) => unpack(all.subarray(st - 1, st - 1 + lengths[i])).map((e) => e[0])),
      [['r0', 'r1'], ['r3', 'r4'], ['r2']],
      "x's first batch is full at two; its second goes in the same write",
    );
    const errors = statements.find((x) => x.sql.includes('INSERT INTO request_log_errors'))!;
    assert.deepEqual(errors.params[0], ['11001', '13000'], 'r1 is the second of batch 11, r3 the first of 13');
    assert.deepEqual(errors.params[4], ['{"code":"e1"}', '{"code":"e3"}']);
  });

  it('never throws when the database fails, and drops rows beyond its buffer', async () => {
    const db = { query: async () => Promise.reject(new Error('down')) };
    const log = new RequestLog({ db: db as never, log: silent, writeRows: 100, flushMs: 60_000, maxBuffered: 2 });
    for (let i = 0; i < 3; i++) log.record(record(i));
    assert.deepEqual(log.state(), { recording: true, buffered: 2, dropped: 1 });
    assert.deepEqual(
      await log.setRecording(false),
      { recording: false, buffered: 0, dropped: 3 },
      'paused, the write was tried',
    );
    assert.equal(log.dropped, 3, 'one over the buffer, two in the failed write');
  });

  it('bounds what waits behind a slow database: rows past maxBuffered, written or not, are dropped', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const written: string[] = [];
    const db = {
      query: async (_sql: string, params: unknown[]) => {
        await gate;
        written.push(...unpack(params[2] as Buffer).map((e) => e[0]));
        return [];
      },
    };
    const log = new RequestLog({ db: db as never, log: silent, writeRows: 2, flushMs: 60_000, maxBuffered: 5 });
    for (let i = 0; i < 10; i++) log.record(record(i));
    assert.equal(log.dropped, 5, 'two writes of two wait, one row is pending, the rest is dropped');
    open();
    await log.flush();
    assert.deepEqual(written, ['r0', 'r1', 'r2', 'r3', 'r4']);
    log.record(record(10));
    await log.flush();
    assert.equal(written.at(-1), 'r10', 'room again once the writes are done');
  });

  it('queues records and packs them a few dozen at a time, in order, the quiet ones by the timer', async () => {
    const writes: string[][] = [];
    const db = {
      query: async (_sql: string, params: unknown[]) => {
        const one = !Array.isArray(params[0]);
        const all = params[2] as Buffer;
        const parts = one
          ? [all]
          : (params[3] as number[]).map((st, i) => all.subarray(st - 1, st - 1 + (params[4] as number[])[i]));
        writes.push(parts.flatMap((b) => unpack(b).map((e) => e[0])));
        return [];
      },
    };
    const log = new RequestLog({ db: db as never, log: silent, flushMs: 30 });
    const orgOf = (i: number) => (i % 3 === 0 ? 'Organization_b' : 'Organization_a');
    for (let i = 0; i < 150; i++) log.record({ ...record(i), organizationId: orgOf(i) });
    assert.deepEqual(log.state(), { recording: true, buffered: 150, dropped: 0 }, 'queued and packed alike');
    assert.equal(writes.length, 0, 'nothing written before the timer');
    for (let waited = 0; log.state().buffered > 0 && waited < 100; waited++)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(writes.length, 1, 'one write when the timer fires');
    const ids = Array.from({ length: 150 }, (_, i) => `r${i}`);
    assert.deepEqual([...writes[0]].sort(), [...ids].sort(), 'the queued ones (150 is not a multiple of 64) too');
    const inOrder = (org: string) => writes[0].filter((id) => orgOf(Number(id.slice(1))) === org);
    for (const org of ['Organization_a', 'Organization_b'])
      assert.deepEqual(
        inOrder(org),
        ids.filter((id) => orgOf(Number(id.slice(1))) === org),
        org,
      );
    // A lone request on a quiet node is written by the timer too.
    log.record(record(150));
    for (let waited = 0; writes.length < 2 && waited < 100; waited++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(writes[1], ['r150']);
  });

  it('redacts secrets, addresses and e-mails in nested bodies', () => {
    const out = redact({
      secret: 'x',
      apiKey: 'y',
      url: 'https://a.example/?k=sk_test_abcdef',
      items: [{ email: 'a@b.example', message: 'write to c@d.example' }],
      combinedAddress: { lastname: 'Doe', countryCode: 'DE', housenumber: 3 },
    }) as any;
    assert.equal(out.secret, '[redacted]');
    assert.equal(out.apiKey, '[redacted]');
    assert.doesNotMatch(out.url, /sk_test_abcdef/);
    assert.equal(out.items[0].email, '[redacted]');
    assert.equal(out.items[0].message, 'write to [redacted e-mail]');
    assert.deepEqual(out.combinedAddress, { lastname: '[redacted]', countryCode: 'DE', housenumber: '[redacted]' });
  });
});
