import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SeedResult } from '../../src/seed/demo.ts';
import { type Child, http, sleep, startProcess } from './process.ts';
import { recordFigures } from './support.ts';

const OPERATOR = 'reliability-limits-operator';

/** Sends `total` bytes in chunks, without Content-Length; resolves with the status and the time. */
function chunked(
  base: string,
  path: string,
  headers: Record<string, string>,
  total: number,
): Promise<{ status: number; ms: number; sent: number }> {
  const url = new URL(path, base);
  const started = Date.now();
  return new Promise((resolve) => {
    let sent = 0;
    let done = false;
    const finish = (status: number) => {
      if (done) return;
      done = true;
      resolve({ status, ms: Date.now() - started, sent });
    };
    const req = request(url, { method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      finish(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', () => finish(0));
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    const pump = () => {
      while (!done && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!done) req.end();
    };
    pump();
  });
}

async function rss(base: string): Promise<number> {
  const res = await http(base, 'GET', '/metrics', { headers: { authorization: `Bearer ${OPERATOR}` } });
  return Number(/^process_resident_memory_bytes (\d+)$/m.exec(res.text)?.[1] ?? 0);
}

describe('limits: oversized headers and bodies, slow clients', { timeout: 1_200_000 }, () => {
  let s: Child;
  let dir: string;
  let key: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pod-reliability-limits-'));
    s = await startProcess('src/main.ts', {
      DATA_DIR: dir,
      OPERATOR_TOKEN: OPERATOR,
      RATE_LIMITS: 'default=100000000/60,uploads=100000000/60,downloads=100000000/60',
    });
    key = (JSON.parse(readFileSync(join(dir, 'demo-keys.json'), 'utf8')) as SeedResult).organizations[0].apiKeys.full;
  });
  after(async () => {
    await s?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses oversized headers and bodies past every limit quickly, without memory growth', async () => {
    const startRss = await rss(s.base);
    const timings: number[] = [];
    // headers past Node's 16 KB limit
    for (let i = 0; i < 5; i++) {
      const t0 = Date.now();
      const res = await http(s.base, 'GET', '/v2/organization', {
        key,
        headers: { 'x-padding': 'a'.repeat(64 * 1024) },
      });
      timings.push(Date.now() - t0);
      assert.ok(res.status === 431 || res.status === 0, `oversized headers: ${res.status}`);
    }
    // a JSON body past BODY_LIMIT_BYTES, declared and chunked
    for (let i = 0; i < 10; i++) {
      const t0 = Date.now();
      const res = await http(s.base, 'POST', '/v2/orders', {
        key,
        headers: { 'content-type': 'application/json' },
        raw: Buffer.alloc(2 * 1024 * 1024, 0x20),
      });
      timings.push(Date.now() - t0);
      assert.ok(res.status === 413 || res.status === 0, `large JSON: ${res.status} ${res.text.slice(0, 200)}`);
      if (res.status === 413) assert.equal(res.body.code, 'payload_too_large');
      const c = await chunked(
        s.base,
        '/v2/orders',
        { 'x-service-secret-key': key, 'content-type': 'application/json' },
        3 * 1024 * 1024,
      );
      timings.push(c.ms);
      assert.ok(c.status === 413 || c.status === 0, `chunked JSON: ${c.status}`);
    }
    // uploads past UPLOAD_LIMIT_BYTES (50 MB): declared, and streamed without a length
    for (let i = 0; i < 3; i++) {
      const c = await chunked(
        s.base,
        '/v2/images',
        { 'x-service-secret-key': key, 'content-type': 'application/octet-stream' },
        60 * 1024 * 1024,
      );
      timings.push(c.ms);
      assert.ok(c.status === 413 || c.status === 0, `chunked upload: ${c.status}`);
    }
    const big = await http(s.base, 'POST', '/v2/images', { key, raw: Buffer.alloc(51 * 1024 * 1024) });
    assert.ok(big.status === 413 || big.status === 0, `declared upload: ${big.status}`);
    assert.equal((await http(s.base, 'GET', '/v2/organization', { key })).status, 200, 'still serving');
    const endRss = await rss(s.base);
    const growthMb = (endRss - startRss) / 1024 / 1024;
    const slowest = Math.max(...timings);
    recordFigures('limits', {
      notes: [
        `limits: ${timings.length + 1} oversized requests refused, slowest ${slowest} ms; resident memory ${(startRss / 1048576).toFixed(0)} -> ${(endRss / 1048576).toFixed(0)} MB`,
      ],
    });
    assert.ok(slowest < 30_000, `each refusal came quickly (slowest ${slowest} ms)`);
    assert.ok(growthMb < 200, `resident memory grew by ${growthMb.toFixed(0)} MB`);
  });

  it('keeps serving while slow clients dribble headers, and closes them', async () => {
    const url = new URL(s.base);
    const sockets: Socket[] = [];
    const closed: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 50; i++) {
      const sock = connect(Number(url.port), url.hostname);
      sock.on('error', () => {});
      sock.on('close', () => closed.push(Date.now() - started));
      sock.write('GET /v2/organization HTTP/1.1\r\nHost: x\r\n');
      sockets.push(sock);
    }
    const dribble = setInterval(() => {
      for (const sock of sockets)
        if (!sock.destroyed) sock.write(`x-slow-${Math.random().toString(36).slice(2, 6)}: 1\r\n`);
    }, 2000);
    try {
      for (let i = 0; i < 5; i++) {
        assert.equal(
          (await http(s.base, 'GET', '/v2/organization', { key })).status,
          200,
          'a normal client is served meanwhile',
        );
        await sleep(1000);
      }
      // Node's headersTimeout (60 s, checked every 30 s) ends each of them.
      const end = Date.now() + 150_000;
      while (closed.length < sockets.length && Date.now() < end) await sleep(1000);
      assert.equal(
        closed.length,
        sockets.length,
        `${closed.length} of ${sockets.length} slow connections closed by the server`,
      );
      recordFigures('limits', {
        notes: [
          `slow-loris: ${sockets.length} connections dribbling headers closed by the server after ${(Math.max(...closed) / 1000).toFixed(0)} s; normal requests served meanwhile`,
        ],
      });
    } finally {
      clearInterval(dribble);
      for (const sock of sockets) sock.destroy();
    }
  });
});
