import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { type DeviceGeometry, loadDevices } from '../../src/modules/catalog/devices.ts';
import { caseOutline } from '../../src/modules/catalog/geometry.ts';
import { type Generator, generatedTemplate } from '../../src/modules/rendering/generated.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { composeRender } from '../../src/modules/rendering/renderer.ts';
import { STAGE_SIZES, stagePerspectiveKey, stageSceneKey } from '../../src/modules/rendering/stage-compositions.ts';
import { FRAME_MARGIN, STAGES, StageCamera, framed } from '../../src/modules/rendering/stage/stages.ts';
import { propRects, renderPlate, stageTemplate } from '../../src/modules/rendering/stage/template.ts';
import { bleedBackMm, caseSolid } from '../../src/modules/rendering/stage/case-mesh.ts';
import { FLAT_PATCH, highPassStd } from '../../src/modules/rendering/stage/noise.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { createRender, uploadSolid } from './helpers.ts';

const device = (key: string) => loadDevices().find((d) => d.key === key)!;

describe('3D stages: the case rendered at run time from its geometry', () => {
  it('keeps every prop inside the frame, in every stage, view and output shape', () => {
    for (const st of STAGES)
      for (const view of st.views)
        for (const size of [
          { width: 1000, height: 1000 },
          { width: 2000, height: 2000 },
          { width: 1600, height: 900 },
          { width: 800, height: 1200 },
        ]) {
          const cam = new StageCamera(framed(st, view, size), size);
          for (const [x0, y0, x1, y1] of propRects(st, cam)) {
            const at = `${st.key}/${view.key} ${size.width}x${size.height}`;
            assert.ok(x0 >= size.width * FRAME_MARGIN * 0.99 && y0 >= size.height * FRAME_MARGIN * 0.99, at);
            assert.ok(
              x1 <= size.width * (1 - FRAME_MARGIN * 0.99) && y1 <= size.height * (1 - FRAME_MARGIN * 0.99),
              at,
            );
          }
        }
  });

  it('renders plates without noise: a flat floor patch varies by at most 1.5 levels after a high-pass', async () => {
    const size = { width: 1000, height: 1000 };
    for (const st of STAGES.filter((s) => s.floor === 'paper')) {
      const raw = await renderPlate(st, st.views[0], size);
      const std = highPassStd(raw, size.width, FLAT_PATCH(size.width));
      assert.ok(std <= 1.5, `${st.key}: ${std.toFixed(2)} levels`);
    }
    // The measure sees noise where there is some.
    const noisy = new Uint8Array(100 * 100 * 3).map((_, i) => 128 + (((i * 2654435761) >>> 24) % 9) - 4);
    assert.ok(highPassStd(noisy, 100, { left: 10, top: 10, size: 40 }) > 1.5);
  });

  it('prints the back and its bleed around the camera cut-out, and shows the phone inside the cut-out', async () => {
    const ip15 = device('iphone-15');
    const ct = CASE_TYPES.tough;
    const st = STAGES[0];
    const size = { width: 600, height: 600 };
    const plate = await sharp(await renderPlate(st, st.views[0], size), { raw: { ...size, channels: 3 } })
      .png()
      .toBuffer();
    const material = materialFor(ct, phoneColour(ip15));
    const t = await stageTemplate(plate, st, st.views[0], ip15, ct, material, size);
    const solid = caseSolid(ip15, ct);
    assert.deepEqual(t.backMm, bleedBackMm(solid));
    assert.ok(solid.bleedMm > 5, 'the bleed covers the rounded edge and the side wall');
    const layers = await sharp(t.layers).raw().toBuffer();
    const uv = await sharp(t.uv).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer();
    const u16 = new Uint16Array(uv.buffer, uv.byteOffset, uv.byteLength / 2);
    // Where on the back (mm, bleed included) each fully covered pixel prints.
    const [bw, bh] = t.backMm;
    const o = caseOutline(ip15, ct);
    const h = o.hole;
    let inHole = 0;
    let besideHole = 0;
    let onEdge = 0;
    let pixels = 0;
    for (let i = 0; i < size.width * size.height; i++) {
      if (layers[i * 3] < 255) continue;
      pixels++;
      const x = (u16[i * 3] / 65535) * bw - solid.bleedMm;
      const y = (u16[i * 3 + 1] / 65535) * bh - solid.bleedMm;
      // Signed distance to the cut-out's rounded outline (negative inside).
      const qx = Math.abs(x - (h.xMm + h.widthMm / 2)) - (h.widthMm / 2 - h.radiusMm);
      const qy = Math.abs(y - (h.yMm + h.heightMm / 2)) - (h.heightMm / 2 - h.radiusMm);
      const d = Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - h.radiusMm;
      if (d < -0.5) inHole++;
      // The band right beside the hole (below and to its right) is printed: no unprinted band.
      if (x > h.xMm && x < h.xMm + h.widthMm && y > h.yMm + h.heightMm + 0.5 && y < h.yMm + h.heightMm + 4)
        besideHole++;
      if (x < 0 || y < 0 || x > o.widthMm || y > o.heightMm) onEdge++;
    }
    assert.ok(pixels > 5000, `${pixels} pixels of case`);
    assert.equal(inHole, 0, 'nothing is printed inside the camera cut-out');
    assert.ok(besideHole > 50, `${besideHole} printed pixels just below the cut-out`);
    assert.ok(onEdge > 200, `${onEdge} pixels print the bleed on the curved edge and the side`);
  });

  it('keeps black artwork black on a clear case and leaves its rim unprinted, showing the phone', async () => {
    const ip15 = device('iphone-15');
    const ct = CASE_TYPES.clear;
    const st = STAGES.find((s) => s.floor === 'marble')!;
    const size = { width: 500, height: 500 };
    const plate = await sharp(await renderPlate(st, st.views[0], size), { raw: { ...size, channels: 3 } })
      .png()
      .toBuffer();
    // The same clear case on a red and on a blue phone: what differs outside the print is the phone.
    const red = await stageTemplate(plate, st, st.views[0], ip15, ct, materialFor(ct, '#d02020'), size);
    const blue = await stageTemplate(plate, st, st.views[0], ip15, ct, materialFor(ct, '#2040d0'), size);
    const solid = caseSolid(ip15, ct);
    assert.equal(solid.bleedMm, 0, 'a clear case prints its flat back only');
    assert.deepEqual(red.backMm, [solid.widthMm, solid.heightMm]);
    const black = await sharp({ create: { width: 60, height: 120, channels: 3, background: '#000000' } })
      .png()
      .toBuffer();
    const output = { widthPx: size.width, heightPx: size.height, format: 'png' as const };
    const rgb = await sharp((await composeRender({ ...red, output }, black)).media)
      .raw()
      .toBuffer();
    const mask = await sharp(red.layers).extractChannel(0).raw().toBuffer();
    const bgRed = await sharp(red.background).raw().toBuffer();
    const bgBlue = await sharp(blue.background).raw().toBuffer();
    // Pixels reachable from the frame's border without crossing the print: the floor and the rim,
    // not the camera cut-out (which the print surrounds).
    const n = size.width * size.height;
    const outside = new Uint8Array(n);
    const stack = [0];
    outside[0] = 1;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % size.width;
      for (const j of [i - size.width, i + size.width, x > 0 ? i - 1 : -1, x < size.width - 1 ? i + 1 : -1])
        if (j >= 0 && j < n && !outside[j] && mask[j] < 128) {
          outside[j] = 1;
          stack.push(j);
        }
    }
    let printed = 0;
    let dark = 0;
    let rim = 0;
    for (let i = 0; i < n; i++) {
      const o = i * 3;
      if (mask[i] === 255) {
        printed++;
        if (rgb[o] + rgb[o + 1] + rgb[o + 2] < 3 * 40) dark++;
      }
      // Red on the red phone, blue on the blue one: the phone's side seen through the rim.
      if (outside[i] && mask[i] === 0 && bgRed[o] - bgBlue[o] > 40 && bgBlue[o + 2] - bgRed[o + 2] > 40) rim++;
    }
    assert.ok(printed > 3000, `${printed} printed pixels`);
    assert.ok(dark / printed > 0.97, `black prints dark: ${dark} of ${printed}`);
    assert.ok(rim > 400, `${rim} rim pixels show the phone's colour`);
  });

  describe('in the catalog', () => {
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
        const parts = await generatedTemplate(t.s.blobs, g, shapes.get(product), output);
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
    });
  });
});
