import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { fitWithin, inspectImage } from '../../src/platform/images.ts';
import { imageDecodeMemory, setImageMemoryBudget } from '../../src/platform/memory/decodes.ts';

const MB = 1024 * 1024;
const solid = (size: number) => sharp({ create: { width: size, height: size, channels: 3, background: '#336699' } });

describe('image decodes are sized by memory (IMAGE_MEMORY_MB)', () => {
  after(() => setImageMemoryBudget(200));

  it('refuses from the header an image whose whole decode alone exceeds the budget, naming the way out', async () => {
    setImageMemoryBudget(40);
    const interlaced = await solid(4000).png({ progressive: true, compressionLevel: 1 }).toBuffer();
    await assert.rejects(
      () => fitWithin(interlaced, 7000),
      (err: any) =>
        err.status === 400 &&
        err.code === 'invalid_image' &&
        /interlaced PNG of 4000x4000 pixels: decoding it would need about \d+ MB, more than the 40 MB/.test(
          err.message,
        ) &&
        /without interlacing/.test(err.message),
    );
    const progressive = await solid(4000).jpeg({ progressive: true }).toBuffer();
    await assert.rejects(() => inspectImage(progressive), /progressive JPEG .* send it as a baseline JPEG/);
    // The same pixels, streamed, need a few MB: accepted.
    const plain = await solid(4000).png({ compressionLevel: 1 }).toBuffer();
    assert.equal((await fitWithin(plain, 7000)).width, 4000);
    assert.equal((await inspectImage(await solid(4000).jpeg().toBuffer())).width, 4000);
  });

  it('runs concurrent decodes only while their memory fits the budget together', async () => {
    // Each ~1800x1800 interlaced PNG holds ~10 MB of pixels plus streaming overhead (~35 MB): at a
    // 64 MB budget only one runs at a time, whereas the count alone would let two run.
    setImageMemoryBudget(64);
    const files = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        solid(1800 + i)
          .png({ progressive: true, compressionLevel: 1 })
          .toBuffer(),
      ),
    );
    imageDecodeMemory({ resetPeak: true });
    const out = await Promise.all(files.map((f) => fitWithin(f, 7000)));
    assert.equal(out.length, 4);
    const { peak, reserved } = imageDecodeMemory();
    assert.equal(reserved, 0, 'every reservation was given back');
    assert.ok(peak > 30 * MB && peak <= 64 * MB, `peak reservation ${(peak / MB).toFixed(1)} MB`);

    setImageMemoryBudget(200);
    imageDecodeMemory({ resetPeak: true });
    await Promise.all(files.map((f) => fitWithin(f, 7000)));
    assert.ok(imageDecodeMemory().peak > 64 * MB, 'with room for two, two ran together');
  });
});
