import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { type Agent, OTHER_PARTNER, csrfOf, multipart, signedIn, textOf } from './helpers.ts';

const LIMIT = 2_000_000;

const CORNERS = {
  topLeftX: 480,
  topLeftY: 200,
  topRightX: 700,
  topRightY: 215,
  bottomRightX: 690,
  bottomRightY: 700,
  bottomLeftX: 430,
  bottomLeftY: 680,
};

// The photo scene pages without JavaScript: the corners as numbers, refusals on the form, and
// nothing of one organization's scenes or photos for another.
describe('dashboard: photo scenes', () => {
  let t: TestApp;
  let partner: Agent;
  let other: Agent;
  let photo: string;
  let scene: string;
  before(async () => {
    t = await createTestApp({ env: { UPLOAD_LIMIT_BYTES: String(LIMIT) } });
    partner = await signedIn(t);
    other = await signedIn(t, OTHER_PARTNER);
    const bytes = await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#c8b49a' } })
      .jpeg()
      .toBuffer();
    const res = await call(t, 'POST', '/v2/images', {
      payload: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    photo = res.data.image.reference;
  });
  after(() => t.close());

  it('makes a scene from the form, and shows the form again with the reason when the corners cross', async () => {
    const form = `/dashboard/scenes/new?image=${photo}`;
    const page = await partner.get(form);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /class="corner-editor"/);
    const crossed = await partner.submit(
      '/dashboard/scenes',
      {
        image: photo,
        name: 'Counter',
        ...CORNERS,
        topRightX: 690,
        topRightY: 700,
        bottomRightX: 700,
        bottomRightY: 215,
      },
      form,
    );
    assert.equal(crossed.statusCode, 400);
    assert.match(textOf(crossed.body), /convex quadrilateral/);
    assert.match(crossed.body, /name="topRightX"[^>]*value="690"/);
    const made = await partner.submit('/dashboard/scenes', { image: photo, name: 'Counter', ...CORNERS }, form);
    assert.equal(made.statusCode, 303, made.body);
    scene = String(made.headers.location).split('/').pop()!;
    const shown = await partner.get(`/dashboard/scenes/${scene}`);
    assert.equal(shown.statusCode, 200);
    assert.match(textOf(shown.body), /Counter/);
    const list = await partner.get('/dashboard/scenes');
    assert.match(list.body, new RegExp(`/dashboard/scenes/${scene}`));
    const img = await partner.get(`/dashboard/images/${photo}/photo`);
    assert.equal(img.statusCode, 200);
    assert.equal(img.headers['content-type'], 'image/jpeg');
  });

  it('names each corner field by its corner and axis, and shows it as x or y under the corner', async () => {
    const body = (await partner.get(`/dashboard/scenes/new?image=${photo}`)).body;
    const named: Array<[string, string, string]> = [];
    for (const name of Object.keys(CORNERS)) {
      const input = new RegExp(`<input id="([^"]+)" name="${name}"[^>]*>`).exec(body);
      assert.ok(input, `an input ${name}`);
      assert.doesNotMatch(input[0], /aria-label/, 'named by its label');
      const label = new RegExp(`<label for="${input[1]}">(.*?)</label>`).exec(body);
      assert.ok(label, `a label for ${name}`);
      // The accessible name leaves out what is aria-hidden (the required mark); the screen shows
      // everything but the visually hidden text.
      const spoken = label[1].replace(/<span[^>]* aria-hidden="true">.*?<\/span>/g, '');
      const shown = label[1].replace(/<span class="sr-only">.*?<\/span>/g, '');
      const text = (h: string) => h.replace(/<[^>]+>/g, '').trim();
      named.push([name, text(spoken), text(shown)]);
    }
    assert.deepEqual(named, [
      ['topLeftX', 'Top left x', 'x *'],
      ['topLeftY', 'Top left y', 'y *'],
      ['topRightX', 'Top right x', 'x *'],
      ['topRightY', 'Top right y', 'y *'],
      ['bottomRightX', 'Bottom right x', 'x *'],
      ['bottomRightY', 'Bottom right y', 'y *'],
      ['bottomLeftX', 'Bottom left x', 'x *'],
      ['bottomLeftY', 'Bottom left y', 'y *'],
    ]);
    assert.match(body, /<legend>Top left \(camera side\)<\/legend>/, 'each pair under its corner');
  });

  it('uploads a photo on the scenes page and opens it to mark the corners; refuses one too large, too small or no image, storing nothing', async () => {
    const list = await partner.get('/dashboard/scenes');
    assert.match(list.body, /action="\/dashboard\/scenes\/photo" enctype="multipart\/form-data"/);
    const csrf = csrfOf(list.body);
    const send = (data: Buffer, filename: string, contentType: string) => {
      const m = multipart({ _csrf: csrf }, { name: 'photo', filename, contentType, data });
      return partner.request('POST', '/dashboard/scenes/photo', { body: m.body, contentType: m.contentType });
    };
    const count = async () => (await call(t, 'GET', '/v2/images?limit=100')).data.images.length;
    const before = await count();
    const counter = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#8a9bb0' } })
      .jpeg()
      .toBuffer();
    const made = await send(counter, 'counter.jpg', 'image/jpeg');
    assert.equal(made.statusCode, 303, made.body);
    const next = String(made.headers.location);
    assert.match(next, /^\/dashboard\/scenes\/new\?image=Image_/);
    const image = await call(t, 'GET', `/v2/images/${next.split('=')[1]}`);
    assert.deepEqual([image.data.image.width, image.data.image.height], [1600, 1200]);
    const corners = await partner.get(next);
    assert.equal(corners.statusCode, 200);
    assert.match(corners.body, /class="corner-editor" data-width="1600" data-height="1200"/);
    assert.match(textOf(corners.body), /Photo uploaded: mark where the case sits/);
    assert.equal(await count(), before + 1);

    // Over the upload limit, as `POST /v2/images` refuses it: 413, the page again with the reason.
    const noise = await sharp(randomBytes(1000 * 672 * 3), { raw: { width: 1000, height: 672, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    assert.ok(noise.length > LIMIT && noise.length < LIMIT + 64 * 1024, `${noise.length} bytes`);
    const big = await send(noise, 'noise.png', 'image/png');
    assert.equal(big.statusCode, 413, big.body);
    assert.match(textOf(big.body), /larger than the limit of 2000000 bytes/);
    const huge = await send(Buffer.alloc(LIMIT + 200 * 1024, 1), 'huge.jpg', 'image/jpeg');
    assert.equal(huge.statusCode, 413);
    assert.match(huge.headers['content-type'] as string, /text\/html/);
    // Too small to make a scene of, and not an image at all.
    const small = await send(
      await sharp({ create: { width: 900, height: 600, channels: 3, background: '#8a9bb0' } })
        .jpeg()
        .toBuffer(),
      'small.jpg',
      'image/jpeg',
    );
    assert.equal(small.statusCode, 400);
    assert.match(textOf(small.body), /900 × 600 px; a photo scene needs at least 1000 px/);
    const text = await send(Buffer.from('not a photo at all'), 'photo.jpg', 'image/jpeg');
    assert.equal(text.statusCode, 400, text.body);
    assert.match(textOf(text.body), /not a JPEG or PNG image/);
    const none = await partner.request('POST', '/dashboard/scenes/photo', {
      ...multipart({ _csrf: csrf }, { name: 'photo', filename: '', contentType: 'image/jpeg', data: Buffer.alloc(0) }),
    });
    assert.equal(none.statusCode, 400);
    assert.match(textOf(none.body), /Choose a photo to upload/);
    assert.equal(await count(), before + 1, 'nothing refused is stored');
  });

  it("answers another organization's scene and photo with 404, like unknown ones", async () => {
    for (const url of [
      `/dashboard/scenes/${scene}`,
      `/dashboard/scenes/${scene}/preview?product=x&image=y`,
      `/dashboard/images/${photo}/photo`,
      `/dashboard/scenes/new?image=${photo}`,
    ])
      assert.equal((await other.get(url)).statusCode, 404, url);
    assert.doesNotMatch((await other.get('/dashboard/scenes')).body, new RegExp(scene));
    const del = await other.submit(`/dashboard/scenes/${scene}/delete`, {});
    assert.equal(del.statusCode, 404);
  });

  it('deletes a scene', async () => {
    const del = await partner.submit(`/dashboard/scenes/${scene}/delete`, {}, `/dashboard/scenes/${scene}`);
    assert.equal(del.statusCode, 303);
    assert.equal((await partner.get(`/dashboard/scenes/${scene}`)).statusCode, 404);
  });
});
