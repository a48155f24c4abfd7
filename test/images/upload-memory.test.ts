import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { uploadMemory } from '../../src/platform/http/upload.ts';
import { MemoryBudget } from '../../src/platform/memory/budget.ts';
import { type TestApp, createTestApp } from '../support/app.ts';
import { uploadRequest } from './fixtures.ts';

describe('upload bodies share a memory budget (UPLOAD_MEMORY_MB)', () => {
  it('hands out bytes first come, first served, and a request over the whole budget runs alone', async () => {
    const b = new MemoryBudget(100);
    const order: string[] = [];
    const r1 = await b.acquire(60);
    const second = b.acquire(60).then((r) => (order.push('second'), r));
    const third = b.acquire(10).then((r) => (order.push('third'), r));
    await new Promise((r) => setImmediate(r));
    assert.equal(order.length, 0, 'the second waits, and the small third does not overtake it');
    r1();
    r1(); // twice is harmless
    const r2 = await second;
    const r3 = await third;
    assert.deepEqual(order, ['second', 'third']);
    assert.equal(b.inUse, 70);
    const huge = b.acquire(1000).then((r) => (order.push('huge'), r));
    r2();
    await new Promise((r) => setImmediate(r));
    assert.ok(!order.includes('huge'));
    r3();
    (await huge)();
    assert.equal(b.inUse, 0);
  });

  it("keeps one owner that already holds something to half the budget, so others' uploads still go", async () => {
    const b = new MemoryBudget(100);
    const got: string[] = [];
    const a1 = await b.acquire(60, 'org-a'); // a first upload may be large: it holds nothing yet
    const a2 = b.acquire(10, 'org-a').then((r) => (got.push('a2'), r));
    const b1 = b.acquire(30, 'org-b').then((r) => (got.push('b1'), r));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(got, ['b1'], "org-a's second waits for its own release; org-b's goes past it");
    a1();
    (await a2)();
    (await b1)();
    assert.deepEqual(got, ['b1', 'a2']);
    assert.equal(b.inUse, 0);
  });

  describe('through the API', () => {
    let t: TestApp;
    let port: number;
    const finishers: Array<() => void> = [];
    before(async () => {
      t = await createTestApp();
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      port = (t.app.server.address() as AddressInfo).port;
    });
    after(async () => {
      uploadMemory.setBudget(64 * 1024 * 1024);
      await t.close();
    });

    /** Polls until `ready()` holds (the server reads the body when the machine lets it), or fails after 20 s. */
    async function until(ready: () => boolean, what: string) {
      const deadline = Date.now() + 20_000;
      while (!ready()) {
        if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    /** Starts an upload and sends `first` bytes of it; `finish()` sends the rest. */
    function upload(bytes: Buffer, first: number) {
      let status = 0;
      const done = new Promise<number>((resolve, reject) => {
        const req = uploadRequest(t, port, bytes.length, (res) => {
          res.resume();
          res.on('end', () => resolve((status = res.statusCode ?? 0)));
        });
        req.on('error', reject);
        req.write(bytes.subarray(0, first));
        finishers.push(() => req.end(bytes.subarray(first)));
      });
      return { done, status: () => status };
    }

    it('a second upload is answered only after the first, when both do not fit together', async () => {
      const png = (shade: number) =>
        sharp({ create: { width: 600, height: 600, channels: 3, background: { r: shade, g: 0, b: 0 } } })
          .png({ compressionLevel: 0 })
          .toBuffer();
      const [a, b] = await Promise.all([png(10), png(20)]);
      uploadMemory.setBudget(a.length + 1000);
      const first = upload(a, 1000);
      await until(() => uploadMemory.inUse > 0, 'the first upload is admitted');
      assert.equal(uploadMemory.inUse, a.length, 'the first holds its declared size');
      const second = upload(b, b.length - 1);
      finishers[1]();
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(second.status(), 0, 'the second is not read while the first holds the budget');
      finishers[0]();
      assert.equal(await first.done, 200);
      assert.equal(await second.done, 200);
      await until(() => uploadMemory.inUse === 0, 'everything is given back');
      assert.equal(uploadMemory.inUse, 0, 'everything given back');
    });
  });
});
