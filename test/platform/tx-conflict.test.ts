import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import {
  CONFLICT_RUNS,
  PG_DEADLOCK,
  PG_SERIALIZATION_FAILURE,
  fromDatabase,
  retriedOnConflict,
} from '../../src/platform/db/types.ts';
import { installErrorHandling } from '../../src/platform/http/error-handler.ts';

const dbError = (code: string) => fromDatabase(Object.assign(new Error(`database said ${code}`), { code }));

/** A transaction that fails with the given errors, one a run, then answers how many runs it took. */
function failing(...errors: Error[]) {
  let runs = 0;
  return {
    run: async () => {
      runs++;
      const err = errors[runs - 1];
      if (err) throw err;
      return runs;
    },
    runs: () => runs,
  };
}

/** The pauses taken between runs, taken at once. */
function pauses() {
  const taken: number[] = [];
  return { taken, pause: async (ms: number) => void taken.push(ms) };
}

describe('retriedOnConflict', () => {
  for (const code of [PG_DEADLOCK, PG_SERIALIZATION_FAILURE]) {
    it(`runs a transaction PostgreSQL aborted with ${code} again and answers with that run`, async () => {
      const tx = failing(dbError(code));
      assert.equal(await retriedOnConflict(tx.run), 2);
    });
  }

  it('runs it up to three times in all, pausing a little longer before each new run', async () => {
    assert.equal(CONFLICT_RUNS, 3);
    const p = pauses();
    const tx = failing(dbError(PG_DEADLOCK), dbError(PG_SERIALIZATION_FAILURE));
    assert.equal(await retriedOnConflict(tx.run, p.pause), 3);
    assert.equal(p.taken.length, 2);
    assert.ok(p.taken[0] >= 5 && p.taken[0] <= 25, `first pause ${p.taken[0]} ms`);
    assert.ok(p.taken[1] >= 10 && p.taken[1] <= 50, `second pause ${p.taken[1]} ms`);
  });

  it("throws the last run's conflict once every run conflicted, and runs no more", async () => {
    const last = dbError(PG_DEADLOCK);
    const p = pauses();
    const tx = failing(dbError(PG_DEADLOCK), dbError(PG_DEADLOCK), last, dbError(PG_DEADLOCK));
    await assert.rejects(retriedOnConflict(tx.run, p.pause), (e) => e === last);
    assert.equal(tx.runs(), CONFLICT_RUNS);
    assert.equal(p.taken.length, CONFLICT_RUNS - 1);
  });

  it('throws any other failure at once, and a conflict code not from the database client', async () => {
    for (const err of [dbError('23505'), Object.assign(new Error('not the database'), { code: PG_DEADLOCK })]) {
      const tx = failing(err);
      await assert.rejects(retriedOnConflict(tx.run), (e) => e === err);
      assert.equal(tx.runs(), 1);
    }
  });
});

describe('a conflict the retries did not get past', () => {
  it('is answered 503 write_conflict with Retry-After: 1, not a 500', async () => {
    const app = Fastify({ logger: false });
    installErrorHandling(app);
    app.post('/deadlocked', async () =>
      retriedOnConflict(failing(...Array(CONFLICT_RUNS).fill(dbError(PG_DEADLOCK))).run),
    );
    app.post('/serialization', async () => {
      throw dbError(PG_SERIALIZATION_FAILURE);
    });
    app.post('/not-the-database', async () => {
      throw Object.assign(new Error('a deadlock code from elsewhere'), { code: PG_DEADLOCK });
    });
    try {
      for (const url of ['/deadlocked', '/serialization']) {
        const res = await app.inject({ method: 'POST', url });
        assert.equal(res.statusCode, 503, url);
        assert.equal(res.headers['retry-after'], '1');
        const body = res.json();
        assert.equal(body.code, 'write_conflict');
        assert.match(body.message, /same records at the same moment; nothing was written, send the request again/);
      }
      const other = await app.inject({ method: 'POST', url: '/not-the-database' });
      assert.equal(other.statusCode, 500);
      assert.equal(other.json().code, 'internal_error');
    } finally {
      await app.close();
    }
  });
});
