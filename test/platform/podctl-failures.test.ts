import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type ServerResponse, createServer } from 'node:http';
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

/** podctl `args` against a server that gives every request the one answer `answer` writes. */
async function againstServer(args: string[], answer: (res: ServerResponse) => void) {
  const server = createServer((_req, res) => answer(res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const dir = mkdtempSync(join(tmpdir(), 'podctl-answer-'));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return await podctl(['--url', url, ...args], { DATA_DIR: dir, OPERATOR_TOKEN });
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('podctl when the server answers with something other than JSON', () => {
  it('names the status and content type of a proxy error page in a one-line error', async () => {
    const res = await againstServer(['orgs', 'list', '--json'], (r) =>
      r.writeHead(502, { 'content-type': 'text/html; charset=utf-8' }).end('<html>bad gateway</html>'),
    );
    assert.equal(res.code, 1);
    assert.equal(res.stdout, '');
    assert.equal(res.stderr, 'error: the server answered 502 with text/html, not JSON\n');
  });
});

describe('podctl when something unexpected fails', () => {
  it('logs an unexpected error on stderr and keeps stdout for the answer', async () => {
    // JSON of a shape the command does not expect: a list answered with `null`.
    const res = await againstServer(['orgs', 'list', '--json'], (r) =>
      r.writeHead(200, { 'content-type': 'application/json' }).end('null'),
    );
    assert.equal(res.code, 1);
    assert.equal(res.stdout, '', 'nothing a --json caller would parse');
    const logged = JSON.parse(res.stderr.trim().split('\n').at(-1)!);
    assert.equal(logged.level, 50);
    assert.equal(logged.err.type, 'TypeError');
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
