import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { ApiError } from '../../src/platform/errors.ts';
import { decodeFailure } from '../../src/platform/images.ts';

describe('a decode that runs out of time', () => {
  it('is 503 service_busy with a Retry-After, not a corrupt image, when libvips times out', async () => {
    // A real libvips timeout: a 1 s limit on work that takes far longer.
    const err = await sharp({
      create: {
        width: 6000,
        height: 6000,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 30 },
      },
    })
      .timeout({ seconds: 1 })
      .blur(60)
      .png()
      .toBuffer()
      .then(
        () => null,
        (e: Error) => e,
      );
    assert.ok(err, 'the pipeline timed out');
    const busy = decodeFailure(err, 'png');
    assert.equal(busy.code, 'service_busy');
    assert.equal(busy.status, 503);
    assert.equal(busy.headers?.['retry-after'], '30');
    assert.match(busy.message, /PNG image could not be processed within 120 s/);
  });

  it('is 400 invalid_image for any other decode failure, and keeps an ApiError as it is', async () => {
    const err = await sharp(Buffer.from('not a png at all'))
      .png()
      .toBuffer()
      .then(
        () => null,
        (e: Error) => e,
      );
    const bad = decodeFailure(err, 'jpeg');
    assert.equal(bad.code, 'invalid_image');
    assert.equal(bad.status, 400);
    assert.match(bad.message, /JPEG image is truncated or corrupt/);
    const own = new ApiError('payload_too_large', 'too big');
    assert.equal(decodeFailure(own, 'png'), own);
  });
});
