import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { deliver } from '../../src/platform/http/targets.ts';

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
