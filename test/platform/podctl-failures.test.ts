import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { connect } from '../../src/cli/client.ts';
import { loadConfig } from '../../src/config.ts';
import { lockDataDir } from '../../src/platform/data-dir-lock.ts';
import type { Services } from '../../src/services.ts';
import { OPERATOR_TOKEN } from '../support/app.ts';
import { podctl } from '../support/podctl.ts';

describe('podctl when something unexpected fails', () => {
  it('logs an unexpected error on stderr and keeps stdout for the answer', async () => {
    // A proxy's HTML error page where the operator API's JSON should be.
    const server = createServer((_req, res) =>
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>'),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const dir = mkdtempSync(join(tmpdir(), 'podctl-unexpected-'));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const res = await podctl(['--url', url, 'orgs', 'list', '--json'], { DATA_DIR: dir, OPERATOR_TOKEN });
      assert.equal(res.code, 1);
      assert.equal(res.stdout, '', 'nothing a --json caller would parse');
      const logged = JSON.parse(res.stderr.trim().split('\n').at(-1)!);
      assert.equal(logged.level, 50);
      assert.equal(logged.err.type, 'SyntaxError');
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes the embedded database and frees the data directory when the app fails to build', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'podctl-build-fails-'));
    let opened: Services | null = null;
    try {
      await assert.rejects(
        connect(loadConfig({ DATA_DIR: dir }), { init: true }, async (s) => {
          opened = s;
          throw new Error('the app cannot be built');
        }),
        /the app cannot be built/,
      );
      assert.ok(opened, 'the runtime was started');
      await assert.rejects((opened as Services).db.query('SELECT 1'), 'the database is closed');
      lockDataDir(dir, 'podctl').release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
