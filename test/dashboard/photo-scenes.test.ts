import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { type Agent, OTHER_PARTNER, signedIn, textOf } from './helpers.ts';

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
    t = await createTestApp();
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
