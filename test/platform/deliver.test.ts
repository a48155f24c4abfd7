import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { deliver, describeFailure } from '../../src/platform/http/targets.ts';

describe('one delivery attempt', () => {
  it('is bounded as a whole: a receiver trickling its answer cannot hold it past the time-out', async () => {
    const timers = new Set<NodeJS.Timeout>();
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const t = setInterval(() => res.write('.'), 100);
      timers.add(t);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const started = Date.now();
      const result = await deliver(`http://127.0.0.1:${port}/hook`, {
        method: 'POST',
        body: '{}',
        timeoutMs: 600,
        allowPrivate: true,
      });
      const took = Date.now() - started;
      assert.match(String(result.error), /timed out after 600 ms/);
      // Far below the minute a trickle of bytes every 100 ms would otherwise last.
      assert.ok(took < 5000, `took ${took} ms`);
    } finally {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('what a delivery log says of a failed attempt', () => {
  it('names an answer by its status and every refused or unreachable connection alike', () => {
    assert.equal(describeFailure(503, null, 'the endpoint'), 'the endpoint answered HTTP 503');
    for (const e of ['connect ECONNREFUSED 1.2.3.4:8443', 'getaddrinfo ENOTFOUND x.example', 'socket hang up'])
      assert.equal(describeFailure(null, e, 'the callback URL'), 'could not connect to the callback URL');
  });

  it('keeps one short line without query values or API keys', () => {
    const error = `Hostname/IP does not match:\n  https://shop.example/cb?token=s3cret&x=1 sent sk_live_abcDEF123 ${'y'.repeat(400)}`;
    const text = describeFailure(null, error, 'the callback URL');
    assert.ok(
      text.startsWith(
        'Hostname/IP does not match: https://shop.example/cb?token=[redacted]&x=[redacted] sent [redacted key] y',
      ),
      text,
    );
    assert.ok(!/s3cret|abcDEF123|\n/.test(text), text);
    assert.equal(text.length, 300);
    assert.ok(text.endsWith('…'));
    assert.equal(describeFailure(null, 'timed out after 600 ms', 'the endpoint'), 'timed out after 600 ms');
    assert.equal(describeFailure(null, '  \n ', 'the endpoint'), 'failed without a message');
  });
});
