import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, createTestApp } from '../support/app.ts';
import { testDatabaseUrl } from '../support/db.ts';

describe('the embedded database', {
  skip: testDatabaseUrl ? 'TEST_DATABASE_URL is set: the tests run on PostgreSQL' : false,
}, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t?.close());

  it('starts with 16 MB of shared buffers, not PostgreSQL’s 128 MB (its WASM memory never shrinks)', async () => {
    assert.equal(t.db.kind, 'pglite');
    assert.deepEqual(await t.db.query('SHOW shared_buffers'), [{ shared_buffers: '16MB' }]);
  });
});
