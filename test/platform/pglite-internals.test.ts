import assert from 'node:assert/strict';
import fs, { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import { createPglite } from '../../src/platform/db/pglite.ts';
import { boundMessage } from '../../src/platform/db/pglite-protocol.ts';

/**
 * The embedded database's worker layer (src/platform/db/pglite-worker.ts, pglite-protocol.ts,
 * nodefs-sizes.ts) calls parts of PGlite that are not its documented API. PGlite is pinned to an
 * exact version for that reason; these tests name each part relied on, so that an upgrade that
 * changes one fails here, by name, before it fails somewhere in the worker.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const NAME = '@electric-sql/pglite';

describe('PGlite, whose internals the worker layer relies on', () => {
  it('is pinned to one exact version in package.json, the lock file and node_modules', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    const declared: string = pkg.dependencies[NAME];
    assert.match(declared, /^\d+\.\d+\.\d+$/, `package.json declares ${NAME} as "${declared}", not an exact version`);
    assert.equal(lock.packages[''].dependencies[NAME], declared, 'the lock file declares the same');
    assert.equal(lock.packages[`node_modules/${NAME}`].version, declared, 'the lock file resolves that version');
    const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', NAME, 'package.json'), 'utf8')).version;
    assert.equal(installed, declared, 'node_modules holds that version: run npm ci');
  });

  it('still has every function the worker layer calls', () => {
    const proto = PGlite.prototype as unknown as Record<string, unknown>;
    for (const name of [
      '_runExclusiveQuery',
      '_runExclusiveTransaction',
      'execProtocol',
      'transaction',
      'exec',
      'listen',
      'close',
    ])
      assert.equal(typeof proto[name], 'function', `PGlite.prototype.${name}`);
    assert.ok(Array.isArray(PGlite.defaultStartParams), 'PGlite.defaultStartParams');
    for (const name of ['parse', 'describe', 'bind', 'execute', 'sync', 'close'] as const)
      assert.equal(typeof protocol.serialize[name], 'function', `protocol.serialize.${name}`);
    assert.equal(typeof parse.parseDescribeStatementResults, 'function', 'parse.parseDescribeStatementResults');
    assert.equal(typeof parse.parseResults, 'function', 'parse.parseResults');
  });

  describe('on a database', () => {
    let dir: string;
    let pg: PGlite;
    let fstats = 0;
    const fstatSync = fs.fstatSync;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'pglite-internals-'));
      // Counted from before the database opens: the worker's size cache (nodefs-sizes.ts) replaces
      // this function and relies on PGlite's file system calling it through the module object.
      (fs as unknown as Record<string, unknown>).fstatSync = (...args: Parameters<typeof fstatSync>) => {
        fstats++;
        return fstatSync(...args);
      };
      pg = await createPglite({ dataDir: join(dir, 'db') });
    });
    after(async () => {
      (fs as unknown as Record<string, unknown>).fstatSync = fstatSync;
      await pg?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('asks a file’s size through fs.fstatSync, looked up on the fs module at each call', async () => {
      const before = fstats;
      await pg.exec('CREATE TABLE sizes (n int); INSERT INTO sizes SELECT generate_series(1, 1000)');
      await pg.query('SELECT count(*) FROM sizes');
      assert.ok(fstats > before, 'PostgreSQL’s file sizes came through fs.fstatSync');
    });

    it('prepares, describes and runs a named statement from raw protocol messages, as the worker does', async () => {
      const { serialize } = protocol;
      const join = (parts: Uint8Array[]) => Buffer.concat(parts.map((p) => Buffer.from(p)));
      const described = await pg.execProtocol(
        join([
          serialize.parse({ name: 's1', text: 'SELECT $1::text AS a, $2::int4 AS b' }),
          serialize.describe({ type: 'S', name: 's1' }),
          serialize.sync(),
        ]),
        { syncToFs: false },
      );
      const types = parse.parseDescribeStatementResults(described.messages);
      assert.deepEqual(types, [25, 23], 'the parameter types PostgreSQL described (text, int4)');
      const serializers = pg.serializers as Record<number, (v: unknown) => string>;
      const value = serializers[types[1]] ? serializers[types[1]](7) : '7';
      const { messages } = await pg.execProtocol(boundMessage('s1', ['x', value]), { syncToFs: false });
      assert.deepEqual(parse.parseResults(messages, pg.parsers)[0]?.rows, [{ a: 'x', b: 7 }]);
    });

    it('runs what it is given under its query and transaction locks, one at a time', async () => {
      const order: string[] = [];
      const step = (name: string) => async () => {
        order.push(`${name} in`);
        await new Promise((r) => setImmediate(r));
        order.push(`${name} out`);
        return name;
      };
      const [a, b] = await Promise.all([
        pg._runExclusiveTransaction(() => pg._runExclusiveQuery(step('a'))),
        pg._runExclusiveQuery(step('b')),
      ]);
      assert.deepEqual([a, b], ['a', 'b']);
      // Whichever runs first, the other waits until it is done.
      assert.ok(order.join() === 'a in,a out,b in,b out' || order.join() === 'b in,b out,a in,a out', order.join());
    });
  });
});
