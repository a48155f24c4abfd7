import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PG_DEADLOCK,
  PG_SERIALIZATION_FAILURE,
  fromDatabase,
  onceMoreOnConflict,
} from '../../src/platform/db/types.ts';

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

describe('onceMoreOnConflict', () => {
  for (const code of [PG_DEADLOCK, PG_SERIALIZATION_FAILURE]) {
    it(`runs a transaction PostgreSQL aborted with ${code} once more and answers with that run`, async () => {
      const tx = failing(dbError(code));
      assert.equal(await onceMoreOnConflict(tx.run), 2);
    });
  }

  it('runs it once more only: a second conflict is thrown', async () => {
    const second = dbError(PG_DEADLOCK);
    const tx = failing(dbError(PG_DEADLOCK), second);
    await assert.rejects(onceMoreOnConflict(tx.run), (e) => e === second);
    assert.equal(tx.runs(), 2);
  });

  it('throws any other failure at once, and a conflict code not from the database client', async () => {
    for (const err of [dbError('23505'), Object.assign(new Error('not the database'), { code: PG_DEADLOCK })]) {
      const tx = failing(err);
      await assert.rejects(onceMoreOnConflict(tx.run), (e) => e === err);
      assert.equal(tx.runs(), 1);
    }
  });
});
