import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { storeLogo } from '../../src/modules/dashboard/logos.ts';
import { LocalBlobStore } from '../../src/platform/storage.ts';

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}
const chunk = (type: string, data: Buffer) => {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const out = Buffer.alloc(8 + data.length + 4);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
};

/** The attack's file: a small interlaced PNG whose header claims 16383x16383 pixels. */
function bombPng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(16383, 0);
  ihdr.writeUInt32BE(16383, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  ihdr[12] = 1; // Adam7 interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.alloc(1024 * 1024, 0)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('brand logos go through the bounded image path', () => {
  it('refuses a 16383x16383 PNG from its header, with no memory spike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pod-logo-'));
    try {
      const blobs = new LocalBlobStore(dir);
      const before = process.memoryUsage().rss;
      await assert.rejects(
        () => Promise.all([1, 2, 3].map(() => storeLogo(blobs, 'http://x', bombPng()))),
        (err: any) => err.status === 400 && err.code === 'logo_not_an_image' && /megapixels/.test(err.message),
      );
      const grew = (process.memoryUsage().rss - before) / 1024 / 1024;
      assert.ok(grew < 200, `RSS grew ${grew.toFixed(0)} MB (decoded unbounded, this file takes it to 1.8 GB)`);
      const ok = await sharp({ create: { width: 1200, height: 600, channels: 3, background: '#0f766e' } })
        .png()
        .toBuffer();
      const url = await storeLogo(blobs, 'http://x', ok);
      assert.match(url, /^http:\/\/x\/brand-logos\/[0-9a-z]{26}\.png$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
