import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PgliteDb } from '../../src/platform/db/pglite.ts';
import { PgliteThreadDb } from '../../src/platform/db/pglite-thread.ts';
import type { Db } from '../../src/platform/db/types.ts';

// bytea goes through our own converters (platform/db/pglite.ts), not PGlite's: every byte value,
// nothing, and a request-log sized value must come back as they went in, on both threads.
const values = {
  every: Uint8Array.from({ length: 512 }, (_, i) => i % 256),
  empty: new Uint8Array(0),
  big: new Uint8Array(randomBytes(300_000)),
  // A view into a larger buffer: only its own bytes go.
  view: Buffer.from([9, 9, 1, 2, 3, 9]).subarray(2, 5),
};

for (const [thread, open] of [
  ['worker', (dir: string) => PgliteThreadDb.open({ dataDir: dir })],
  ['inline', (dir: string) => PgliteDb.open({ dataDir: dir })],
] as const) {
  describe(`bytea on the embedded database (${thread} thread)`, () => {
    const dir = mkdtempSync(join(tmpdir(), `pod-bytea-${thread}-`));
    let db: Db;
    before(async () => {
      db = await open(dir);
      await db.exec('CREATE TABLE blobs (name text PRIMARY KEY, data bytea)');
    });
    after(async () => {
      await db?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('stores and reads back every byte value, an empty value, a view and 300 KB', async () => {
      for (const [name, data] of Object.entries(values))
        await db.query('INSERT INTO blobs (name, data) VALUES ($1, $2)', [name, data]);
      const rows = await db.query<{ name: string; data: Uint8Array; n: number }>(
        'SELECT name, data, length(data) AS n FROM blobs',
      );
      assert.equal(rows.length, 4);
      for (const r of rows) {
        const want = values[r.name as keyof typeof values];
        assert.ok(r.data instanceof Uint8Array, r.name);
        assert.equal(r.n, want.length, r.name);
        assert.ok(Buffer.from(r.data).equals(Buffer.from(want)), r.name);
      }
    });

    it('reads literals, and reads the escape output format too', async () => {
      const [hex] = await db.query<{ b: Uint8Array }>(`SELECT '\\x00ff10'::bytea AS b`);
      assert.deepEqual([...hex.b], [0, 255, 16]);
      await db.exec(`SET bytea_output = 'escape'`);
      try {
        const [esc] = await db.query<{ b: Uint8Array }>(`SELECT '\\x00ff415c'::bytea AS b`);
        assert.deepEqual([...esc.b], [0, 255, 65, 92]);
      } finally {
        await db.exec(`SET bytea_output = 'hex'`);
      }
    });
  });
}
