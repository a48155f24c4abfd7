import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DataDirBusy, dataDirHeld, lockDataDir } from '../../src/platform/data-dir-lock.ts';
import { podctl, podctlProcess, podctlSuite } from '../support/podctl.ts';
import { serviceModule, serviceModuleArgs } from '../support/entry.ts';

describe('one process per data directory', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'pod-lock-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a second holder is refused with the first one named; after release it may take it', () => {
    const dir = fresh();
    assert.equal(dataDirHeld(dir), null);
    const first = lockDataDir(dir, 'server', 3000);
    try {
      assert.throws(
        () => lockDataDir(dir, 'server', 3001),
        (err: unknown) =>
          err instanceof DataDirBusy &&
          err.holder?.pid === process.pid &&
          err.message === `${dir} is in use by the server with pid ${process.pid} on port 3000, still starting`,
      );
      first.describe({ port: 3005, url: 'http://127.0.0.1:3005' });
      const held = dataDirHeld(dir);
      assert.equal(held?.holder?.url, 'http://127.0.0.1:3005');
      assert.match(String(new DataDirBusy(dir, held!.holder)), /pid \d+ on port 3005 \(http:\/\/127\.0\.0\.1:3005\)/);
    } finally {
      first.release();
    }
    assert.equal(dataDirHeld(dir), null, 'free again');
    lockDataDir(dir, 'podctl').release();
  });

  it('a holder that dies, even by SIGKILL, leaves nothing to clean up', async () => {
    const dir = fresh();
    const child = spawn(
      process.execPath,
      [
        ...serviceModuleArgs(),
        '--input-type=module',
        '-e',
        `const { lockDataDir } = await import(${JSON.stringify(serviceModule('platform/data-dir-lock.ts'))});
         lockDataDir(process.env.DIR, 'server', 4000); process.stdout.write('locked\\n'); setInterval(() => {}, 1000);`,
      ],
      { env: { ...process.env, DIR: dir }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await once(child.stdout!, 'data');
    assert.throws(
      () => lockDataDir(dir, 'server'),
      (err: unknown) => err instanceof DataDirBusy && err.holder?.pid === child.pid && err.holder?.port === 4000,
    );
    child.kill('SIGKILL');
    await once(child, 'exit');
    lockDataDir(dir, 'server').release();
  });

  describe('podctl beside a holder', () => {
    const server = podctlSuite('pod-lock-cli-');

    it('goes through the operator API of the server that holds the directory, never opening its database', async () => {
      const lock = lockDataDir(server.dir, 'server', 1);
      lock.describe({ url: server.url });
      try {
        // The binary in a process of its own, as an operator's shell starts it beside the server.
        const res = await podctlProcess(['orgs', 'list', '--json'], server.env);
        assert.equal(res.code, 0, res.stderr);
        assert.ok(JSON.parse(res.stdout).organizations.length >= 2, 'the live server answered');
        assert.equal(existsSync(join(server.dir, 'pglite')), false);
      } finally {
        lock.release();
      }
    });

    it('refuses in one line while a server is still starting or another podctl works on it', async () => {
      for (const [role, said] of [
        ['server', /still starting.*try again once it listens, or pass --url/],
        ['podctl', /in use by podctl \(pid \d+\).*try again when it is done/],
      ] as const) {
        const lock = lockDataDir(server.dir, role, 3000);
        try {
          for (const args of [['orgs', 'list'], ['migrate']]) {
            const res = await podctl(['--init', ...args], server.env);
            assert.equal(res.code, 1, `${role} ${args}`);
            assert.match(res.stderr, said);
            assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
            assert.ok(res.stderr.includes(`pid ${process.pid}`));
          }
          assert.equal(existsSync(join(server.dir, 'pglite')), false, 'the database was never opened');
        } finally {
          lock.release();
        }
      }
    });
  });
});
