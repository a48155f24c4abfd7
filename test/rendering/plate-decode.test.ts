import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { decodeKernel } from '../../src/modules/rendering/decode-kernel.ts';

/** RGB pixels with gradients and noise: PNG's adaptive filtering picks every filter type for them. */
function picture(width: number, height: number): Buffer {
  const px = Buffer.alloc(width * height * 3);
  let seed = 7;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const o = (y * width + x) * 3;
      px[o] = (x * 3 + y) & 255;
      px[o + 1] = y < height / 2 ? (seed >> 16) & 255 : (x * y) & 255;
      px[o + 2] = x % 17 < 8 ? 200 : (y * 5) & 255;
    }
  return px;
}

const shared = (n: number) => new Uint8Array(new SharedArrayBuffer(n));

describe('a plate decoded into a render output', () => {
  const width = 157;
  const height = 93;
  const px = picture(width, height);

  for (const adaptiveFiltering of [false, true])
    it(`gives the PNG's pixels exactly (${adaptiveFiltering ? 'every filter type' : 'unfiltered rows'})`, async () => {
      const png = await sharp(px, { raw: { width, height, channels: 3 } })
        .png({ compressionLevel: 6, adaptiveFiltering })
        .toBuffer();
      const out = shared(px.length);
      await decodeKernel({ encoded: png, width, height, out });
      assert.deepEqual(Buffer.from(out.buffer), px);
    });

  it('lays the box pixels over the decoded picture and leaves the rest as decoded', async () => {
    const png = await sharp(px, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer();
    const box = { left: 20, top: 10, width: 30, height: 40 };
    const pixels = new Uint8Array(box.width * box.height * 3).fill(9);
    const out = shared(px.length);
    await decodeKernel({ encoded: png, width, height, out, patch: { box, pixels } });
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const o = (y * width + x) * 3;
        const inside = x >= 20 && x < 50 && y >= 10 && y < 50;
        assert.equal(out[o + 1], inside ? 9 : px[o + 1], `pixel ${x},${y}`);
      }
  });

  it('decodes a picture with alpha through libvips, and refuses one of another size', async () => {
    const rgba = await sharp(px, { raw: { width, height, channels: 3 } })
      .ensureAlpha()
      .png()
      .toBuffer();
    const out = shared(px.length);
    await decodeKernel({ encoded: rgba, width, height, out });
    assert.deepEqual(Buffer.from(out.buffer), px);
    await assert.rejects(decodeKernel({ encoded: rgba, width: width + 1, height, out }), /not 158x93x3/);
  });

  it('refuses a PNG whose image data stops short', async () => {
    const png = await sharp(px, { raw: { width, height, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const idat = png.indexOf('IDAT');
    const length = png.readUInt32BE(idat - 4);
    // The data chunk cut to a tenth, its length field with it (the CRC is not checked).
    const cut = Buffer.concat([
      png.subarray(0, idat - 4),
      Buffer.alloc(4),
      png.subarray(idat, idat + 4 + Math.floor(length / 10)),
    ]);
    cut.writeUInt32BE(Math.floor(length / 10), idat - 4);
    await assert.rejects(decodeKernel({ encoded: cut, width, height, out: shared(px.length) }), /rows|unexpected end/);
  });
});
