import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type DeviceGeometry, loadDevices } from '../../src/modules/catalog/devices.ts';
import { type Generator, generatedTemplate } from '../../src/modules/rendering/generated.ts';
import { composeRender } from '../../src/modules/rendering/renderer.ts';
import { STAGE_SIZES, stagePerspectiveKey, stageSceneKey } from '../../src/modules/rendering/stage-compositions.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { createRender, uploadSolid } from './helpers.ts';

const device = (key: string) => loadDevices().find((d) => d.key === key)!;

// The stages' drawing itself (no app, no database) is in stage-drawing.test.ts.
describe('3D stages in the catalog: every printable model, looked up and rendered through the API', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  const scenes = () => STAGES.map((st) => ({ st, ref: t.seed.rendering!.scenes[stageSceneKey(st.key)] }));
  const perspective = (st: string, view: string, px = 1000, format = 'webp') =>
    t.seed.rendering!.perspectives[stagePerspectiveKey(st, view, px, format)];
  const lookup = (scene: string, product: string, persp: string) =>
    call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${scene}&productReference=${product}&perspectiveReference=${persp}`,
    );

  it('gives every printable model at least 3 stages x 2 angled views, at 1000 and 2000 px in WebP, JPEG and PNG', async () => {
    const products = t.seed.organizations[0].products!;
    const shapes = await t.s.catalog.productShapes(products.map((p) => p.reference));
    const oneOfEach = new Map<string, string>();
    for (const [ref, sh] of shapes)
      if (sh.device && sh.caseType && !oneOfEach.has(sh.device.key)) oneOfEach.set(sh.device.key, ref);
    const printableModels = new Set(
      loadDevices()
        .filter((d) => !d.preliminary)
        .map((d) => d.key),
    );
    for (const key of printableModels) assert.ok(oneOfEach.has(key), `a printable product of ${key}`);
    assert.ok(oneOfEach.size >= 77, `${oneOfEach.size} models`);
    assert.ok(scenes().length >= 3);
    for (const [key, product] of oneOfEach)
      for (const { st, ref } of scenes())
        for (const view of st.views) {
          const res = await lookup(ref, product, perspective(st.key, view.key));
          assert.equal(res.statusCode, 200, `${key} ${st.key}/${view.key}: ${res.body}`);
        }
    // Every size and format, in every stage and view (one model: the lookups above cover the rest).
    const [key, product] = [...oneOfEach][0];
    for (const { st, ref } of scenes())
      for (const view of st.views)
        for (const s of STAGE_SIZES) {
          const res = await lookup(ref, product, perspective(st.key, view.key, s.px, s.format));
          assert.equal(res.statusCode, 200, `${key} ${st.key}/${view.key} ${s.px} ${s.format}: ${res.body}`);
        }
    assert.deepEqual(
      STAGE_SIZES.map((s) => `${s.px} ${s.format}`),
      ['1000 webp', '1000 jpeg', '1000 png', '2000 webp', '2000 jpeg', '2000 png'],
    );
  });

  it('renders an iPhone 15 in the studio at 2000 px', async () => {
    const ip15 = t.seed.organizations[0].products!.find((p) => p.name === 'iPhone 15 Clear Case')!.reference;
    const studio = scenes()[0].ref;
    const found = await lookup(studio, ip15, perspective('studio', 'left', 2000, 'webp'));
    assert.equal(found.statusCode, 200, found.body);
    assert.equal(found.data.composition.tokenCost, 4);
    const image = await uploadSolid(t, { r: 20, g: 90, b: 200 });
    const created = await createRender(t, found.data.composition.reference, image);
    assert.equal(created.statusCode, 200, created.body);
    await t.s.worker.drain();
    const done = await call(t, 'GET', `/v2/renders/${created.data.render.reference}`);
    assert.equal(done.data.render.status, 'completed', done.body);
    const media = await call(t, 'GET', `/v2/renders/${created.data.render.reference}/media`);
    const meta = await sharp(media.rawPayload).metadata();
    assert.deepEqual([meta.width, meta.height, meta.format], [2000, 2000, 'webp']);
    // The artwork's blue covers a good part of the frame: the case is there and printed.
    const { data } = await sharp(media.rawPayload).resize(200, 200).raw().toBuffer({ resolveWithObject: true });
    let blue = 0;
    for (let i = 0; i < data.length; i += 3) if (data[i + 2] > data[i] + 60) blue++;
    assert.ok(blue > 1500, `${blue} blue pixels of 40000`);
  });

  it('renders two colourways of one case in their own colours, and shows the colour in the detail', async () => {
    const products = t.seed.organizations[0].products!;
    const ref = (name: string) => products.find((p) => p.name === name)!.reference;
    const sand = ref('Demo Sand Leather Case iPhone 15');
    const walnut = ref('Demo Walnut Leather Case iPhone 15');
    const detail = (await call(t, 'GET', `/v2/products/${sand}`)).data.product;
    assert.deepEqual(detail.colour, { name: 'Sand', hex: '#c9b28f' });
    const shapes = await t.s.catalog.productShapes([sand, walnut]);
    // Transparent artwork: the shell itself shows.
    const art = await sharp({
      create: { width: 60, height: 120, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    const middle = async (product: string, g: Generator) => {
      const output = { widthPx: 400, heightPx: 400, format: 'png' as const };
      const parts = await generatedTemplate(t.s, g, shapes.get(product), output);
      const { media } = await composeRender({ ...parts, output }, art);
      const { data } = await sharp(media)
        .extract({ left: 170, top: 250, width: 60, height: 60 })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const mean = [0, 1, 2].map((k) => {
        let sum = 0;
        for (let i = k; i < data.length; i += 3) sum += data[i];
        return sum / (data.length / 3);
      });
      return mean;
    };
    for (const g of [{ kind: 'front' } as const, { kind: 'stage', stage: 'studio', view: 'left' } as const]) {
      const a = await middle(sand, g);
      const b = await middle(walnut, g);
      assert.ok(a[0] - b[0] > 50, `${g.kind}: sand ${a.map(Math.round)} is lighter than walnut ${b.map(Math.round)}`);
    }
    // The product pictures too: the back seen straight on, its middle the leather's own colour.
    const backPicture = async (product: string) => {
      const back = (await t.s.catalog.productPictures(product)).find((p) => p.view === 'back')!;
      const patch = await sharp(back.bytes).extract({ left: 450, top: 550, width: 100, height: 100 }).png().toBuffer();
      const { channels } = await sharp(patch).stats();
      return channels.slice(0, 3).map((c) => c.mean);
    };
    const [a, b] = [await backPicture(sand), await backPicture(walnut)];
    assert.ok(a[0] - b[0] > 50, `pictures: sand ${a.map(Math.round)} is lighter than walnut ${b.map(Math.round)}`);
  });

  it('gives a model imported today its stages, from its geometry alone', async () => {
    const phone: DeviceGeometry = {
      ...device('iphone-15'),
      key: 'stage-test-phone',
      brand: 'Testco',
      model: 'Stage Phone',
      releaseDate: '2026-01-15',
      flagship: false,
      body: { widthMm: 68, heightMm: 141, depthMm: 9, cornerRadiusMm: 9 },
      camera: {
        shape: 'circle',
        xMm: 8,
        yMm: 8,
        widthMm: 26,
        heightMm: 26,
        cornerRadiusMm: 13,
        lenses: [{ xMm: 13, yMm: 13, diameterMm: 12 }],
      },
    };
    const res = await operator(t, 'POST', '/catalog/import', {
      catalogDate: '2026-02-01',
      devices: [phone],
      productgroups: [{ code: 'stage-test-tough', name: 'Stage test tough cases', price: 1999, caseType: 'tough' }],
      items: [{ sku: 'CASE-STAGE-TGH', logicalQuantity: 5 }],
      products: [
        {
          name: 'Stage Phone Tough Case',
          productgroup: 'stage-test-tough',
          item: 'CASE-STAGE-TGH',
          device: 'stage-test-phone',
          printable: true,
        },
      ],
    });
    assert.equal(res.statusCode, 200, res.body);
    const product = res.data.references.products[0].reference;
    for (const { st, ref } of scenes())
      for (const view of st.views) {
        const found = await lookup(ref, product, perspective(st.key, view.key));
        assert.equal(found.statusCode, 200, `${st.key}/${view.key}: ${found.body}`);
      }
    const listed = await call(
      t,
      'GET',
      `/v2/scenes?productgroupReference=${res.data.references.productgroups['stage-test-tough']}`,
    );
    assert.ok(
      listed.data.scenes.some((s: { reference: string }) => s.reference === scenes()[0].ref),
      'the new productgroup is listed in the stage',
    );
    const desk = scenes()[1];
    const found = await lookup(desk.ref, product, perspective(desk.st.key, 'right'));
    const image = await uploadSolid(t, { r: 220, g: 40, b: 40 });
    const created = await createRender(t, found.data.composition.reference, image);
    await t.s.worker.drain();
    const done = await call(t, 'GET', `/v2/renders/${created.data.render.reference}`);
    assert.equal(done.data.render.status, 'completed', done.body);
    // The new model's case is there, printed with the artwork's red, its round camera cut-out unprinted.
    const media = await call(t, 'GET', `/v2/renders/${created.data.render.reference}/media`);
    const { data, info } = await sharp(media.rawPayload).raw().toBuffer({ resolveWithObject: true });
    let red = 0;
    for (let i = 0; i < data.length; i += info.channels) if (data[i] > data[i + 1] + 90 && data[i] > 120) red++;
    const share = red / (info.width * info.height);
    assert.ok(share > 0.04 && share < 0.4, `${(share * 100).toFixed(1)} % of the frame is the printed case`);
  });
});
