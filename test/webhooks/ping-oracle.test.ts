import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MemoryRateLimitStore } from '../../src/platform/ratelimit/index.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { createEndpoint } from './helpers.ts';

const PING_MS = 400;

/**
 * A filtered port, made locally: a listener whose process never accepts (its event loop is
 * blocked) and whose accept queue is full, so the kernel drops further connection attempts and
 * a client's connect only times out, as behind a firewall that drops packets.
 */
async function filteredPort(): Promise<{ port: number; child: ChildProcess; fillers: net.Socket[] }> {
  const child = spawn(process.execPath, [
    '-e',
    `const s = require('net').createServer();
     s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
       process.stdout.write(s.address().port + '\\n');
       setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0), 20);
     });`,
  ]);
  const port = Number(await new Promise<string>((r) => child.stdout!.once('data', (d) => r(String(d)))));
  await new Promise((r) => setTimeout(r, 200));
  const fillers: net.Socket[] = [];
  for (;;) {
    const s = net.connect(port, '127.0.0.1').on('error', () => {});
    fillers.push(s);
    const hung = await new Promise<boolean>((r) => {
      s.once('connect', () => r(false));
      setTimeout(() => r(true), 300);
    });
    if (hung) return { port, child, fillers };
    assert.ok(fillers.length < 20, 'the accept queue fills');
  }
}

describe('the test ping is no port oracle', () => {
  let t: TestApp;
  let filtered: Awaited<ReturnType<typeof filteredPort>>;
  before(async () => {
    t = await createTestApp({
      rateLimits: new MemoryRateLimitStore(() => 0),
      env: { WEBHOOK_TEST_TIMEOUT_MS: String(PING_MS) },
    });
    filtered = await filteredPort();
  });
  after(async () => {
    for (const s of filtered.fillers) s.destroy();
    filtered.child.kill('SIGKILL');
    await t.close();
  });

  it('a refused and a filtered port answer alike, after the same minimum time', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));

    const answers = [];
    for (const port of [closedPort, filtered.port]) {
      const ep = await createEndpoint(t, `http://127.0.0.1:${port}/hook`);
      const started = performance.now();
      const res = await call(t, 'POST', `/v2/webhook-endpoints/${ep.reference}/test`);
      const took = performance.now() - started;
      assert.equal(res.statusCode, 200, res.body);
      const attempt = res.data.webhookDelivery.attempts[0];
      answers.push({
        status: attempt.responseStatus,
        error: attempt.error,
        tookAtLeastTheMinimum: took >= PING_MS - 5,
      });
      assert.ok(attempt.durationMs >= PING_MS - 5, `durationMs ${attempt.durationMs}`);
    }
    const same = { status: null, error: 'could not connect to the endpoint', tookAtLeastTheMinimum: true };
    assert.deepEqual(answers, [same, same]);
  });
});
