import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { drawMask, drawTemplate } from '../../src/modules/rendering/assets.ts';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { frontalTemplate } from '../../src/modules/rendering/frontal.ts';
import {
  RenderInputError,
  type Template,
  composeRender,
  releaseRenderMemory,
} from '../../src/modules/rendering/renderer.ts';
import { type RectangleTemplate, checkPrintArea, fromPrintArea } from '../../src/modules/rendering/templates.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { createRender, near, pixel, seeded, uploadSolid } from './helpers.ts';

const solid = (color: string, width = 300, height = 300) =>
  sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();

/** A rectangle template, converted to a UV map the way a stored one is. */
const rectangle = async (t: RectangleTemplate & { output: Template['output'] }): Promise<Template> => ({
  ...(await fromPrintArea(t)),
  output: t.output,
});

describe('composeRender (rectangle templates)', () => {
  it('places the masked image in the rotated print area, with the camera cut away', async () => {
    const area = { x: 100, y: 50, width: 100, height: 200, rotation: 90 };
    const t = await drawTemplate({ width: 400, height: 300 }, area, {
      from: '#ffffff',
      to: '#ffffff',
      surface: '#ffffff',
    });
    const out = await composeRender(
      await rectangle({
        background: await solid('#ffffff', 400, 300),
        mask: t.mask,
        overlay: null,
        printArea: area,
        output: { widthPx: 400, heightPx: 300, format: 'png' },
      }),
      await solid('#00ff00'),
    );
    const meta = await sharp(out.media).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 400, 300]);
    assert.ok(near(await pixel(out.media, 150, 150), [0, 255, 0], 5), 'centre');
    // Rotated 90°: the 200 px height runs horizontally, from x 50 to 250 at y 150.
    assert.ok(near(await pixel(out.media, 60, 150), [0, 255, 0], 5), 'rotated long side');
    assert.ok(near(await pixel(out.media, 150, 60), [255, 255, 255], 5), 'outside the rotated area');
    // The camera cut-out (top left of the unrotated case) lands top right after a clockwise turn.
    assert.ok(near(await pixel(out.media, 220, 120), [255, 255, 255], 5), 'camera hole shows the background');
    assert.ok(near(await pixel(out.media, 220, 180), [0, 255, 0], 5), 'beside the camera hole is printed');
    const thumb = await sharp(out.thumbnail).metadata();
    assert.equal(thumb.width, 256);
    assert.ok(Buffer.from(out.thumbhash, 'base64').length > 4);
  });

  it('resizes to the perspective output and fits an extreme aspect whole (contain)', async () => {
    const area = { x: 40, y: 40, width: 120, height: 120, rotation: 0 };
    const out = await composeRender(
      await rectangle({
        background: await solid('#000000', 200, 200),
        mask: await solid('#ffffff', 120, 120),
        overlay: null,
        printArea: area,
        output: { widthPx: 100, heightPx: 100, format: 'jpeg' },
      }),
      await solid('#ff0000', 1000, 100),
    );
    const meta = await sharp(out.media).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 100, 100]);
    assert.ok(near(await pixel(out.media, 25, 50), [255, 0, 0], 30), 'the banner runs across the middle');
    assert.ok(near(await pixel(out.media, 50, 30), [255, 255, 255], 30), 'above it the white case shows');
    assert.ok(near(await pixel(out.media, 5, 5), [0, 0, 0], 30));
    assert.equal((await sharp(out.thumbnail).metadata()).width, 100, 'a thumbnail is never larger than the media');
  });

  it('refuses images and templates that do not decode, and geometry outside the background', async () => {
    const mask = await drawMask(50, 50);
    const raw = {
      background: await solid('#ffffff', 100, 100),
      mask,
      overlay: null,
      printArea: { x: 10, y: 10, width: 50, height: 50, rotation: 0 },
      output: { widthPx: 100, heightPx: 100, format: 'png' as const },
    };
    const base = await rectangle(raw);
    await assert.rejects(composeRender(base, Buffer.from('nope')), RenderInputError);
    const noisy = await sharp(
      Buffer.alloc(300 * 300 * 3, 7).map((_, i) => (i * 7919) % 251),
      { raw: { width: 300, height: 300, channels: 3 } },
    )
      .png()
      .toBuffer();
    await assert.rejects(
      composeRender(base, noisy.subarray(0, Math.floor(noisy.length / 2))),
      RenderInputError,
      'a truncated image',
    );
    await assert.rejects(rectangle({ ...raw, mask: Buffer.from('nope') }), RenderInputError);
    await assert.rejects(composeRender({ ...base, uv: Buffer.from('nope') }, await solid('#fff')), RenderInputError);
    assert.match(
      checkPrintArea({ x: 60, y: 10, width: 50, height: 50, rotation: 0 }, { width: 100, height: 100 }) ?? '',
      /inside the 100x100 background/,
    );
  });
});

describe('operator import of scenes, perspectives and compositions', () => {
  let t: TestApp;
  let d: ReturnType<typeof seeded>;
  before(async () => {
    t = await createTestApp();
    d = seeded(t);
  });
  after(() => t.close());

  const b64 = (b: Buffer) => b.toString('base64');
  async function payload(area = { x: 50, y: 40, width: 100, height: 200, rotation: 5 }) {
    const tpl = await drawTemplate({ width: 300, height: 300 }, area, {
      from: '#eeeeee',
      to: '#dddddd',
      surface: '#aaaaaa',
    });
    const group = (await call(t, 'GET', `/v2/products/${d.s24}`)).data.product.productgroupReference;
    return {
      scenes: [
        { key: 'test-beach', name: 'Beach', description: 'Sand and sea', compatibleProductgroupReferences: [group] },
      ],
      perspectives: [
        {
          key: 'test-beach-square',
          name: 'Beach square',
          output: { widthPx: 300, heightPx: 300, format: 'png' as const },
          sceneKeys: ['test-beach'],
        },
      ],
      compositions: [
        {
          key: 'test-beach-s24',
          sceneKey: 'test-beach',
          productReference: d.s24,
          perspectiveKey: 'test-beach-square',
          tokenCost: 7,
          template: {
            background: b64(tpl.background),
            mask: b64(tpl.mask),
            overlay: b64(tpl.overlay),
            printArea: area,
          },
        },
      ],
    };
  }

  it('imports a scene with perspective and composition that partners can render with', async () => {
    const res = await operator(t, 'POST', '/rendering/import', await payload());
    assert.equal(res.statusCode, 200, res.body);
    const scene = res.data.scenes[0].reference;
    const perspective = res.data.perspectives[0].reference;
    const composition = res.data.compositions[0].reference;
    const lookup = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${scene}&productReference=${d.s24}&perspectiveReference=${perspective}`,
    );
    assert.deepEqual(lookup.data.composition, { reference: composition, tokenCost: 7 });
    // Importing again updates in place.
    const again = await operator(t, 'POST', '/rendering/import', await payload());
    assert.equal(again.data.compositions[0].reference, composition);
    assert.equal(again.data.scenes[0].reference, scene);

    const image = await uploadSolid(t, { r: 250, g: 120, b: 0 });
    const ref = (await createRender(t, composition, image)).data.render.reference;
    await t.s.worker.drain();
    const media = await call(t, 'GET', `/v2/renders/${ref}/media`);
    assert.equal(media.statusCode, 200);
    assert.ok(near(await pixel(media.rawPayload, 100, 140), [250, 120, 0], 30));
    const events = await t.db.query(`SELECT type, data FROM events WHERE type LIKE 'render.%'`);
    const completed = events.find((e) => e.data.render.reference === ref);
    assert.equal(completed?.type, 'render.completed');
    assert.equal(completed?.data.render.status, 'completed');
  });

  it('renders an imported UV-mapped template; once its UV map is gone, a preview is 410 and a render fails', async () => {
    const device = loadDevices().find((x) => x.key === 'iphone-17-pro')!;
    const tpl = await frontalTemplate(device, CASE_TYPES.clear, { width: 300, height: 300 });
    const body = await payload();
    body.perspectives[0].key = 'test-beach-uv';
    body.compositions[0] = {
      ...body.compositions[0],
      key: 'test-beach-s24-uv',
      perspectiveKey: 'test-beach-uv',
      template: {
        background: b64(tpl.background),
        uv: b64(tpl.uv),
        layers: b64(tpl.layers),
        material: tpl.material,
        backMm: tpl.backMm,
      } as never,
    };
    const res = await operator(t, 'POST', '/rendering/import', body);
    assert.equal(res.statusCode, 200, res.body);
    const composition = res.data.compositions[0].reference;
    const image = await uploadSolid(t, { r: 20, g: 160, b: 90 });
    const ok = (await createRender(t, composition, image)).data.render.reference;
    await t.s.worker.drain();
    assert.equal((await call(t, 'GET', `/v2/renders/${ok}`)).data.render.status, 'completed');

    const [row] = await t.db.query<{ uv_blob_key: string }>(`SELECT uv_blob_key FROM compositions WHERE id = $1`, [
      composition,
    ]);
    await t.s.blobs.delete(row.uv_blob_key);
    releaseRenderMemory(); // the decoded template went with the renders' idle time
    const preview = await call(t, 'POST', '/v2/renders/preview', {
      body: { preview: { compositionReference: composition, imageReference: image } },
    });
    assert.equal(preview.statusCode, 410, preview.body);
    assert.equal(preview.data.code, 'composition_unavailable');
    assert.match(preview.data.message, /template asset missing: uv/);
    const other = await uploadSolid(t, { r: 21, g: 161, b: 91 });
    const failed = (await createRender(t, composition, other)).data.render.reference;
    await t.s.worker.drain();
    const r = (await call(t, 'GET', `/v2/renders/${failed}`)).data.render;
    assert.equal(r.status, 'failed');
    assert.match(r.failureReason, /template asset missing: uv/);
  });

  it('retires a composition (410) and makes it available again', async () => {
    const off = await operator(t, 'PUT', `/rendering/compositions/${d.cStudioS24}/availability`, { available: false });
    assert.equal(off.statusCode, 200);
    const gone = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${d.studio}&productReference=${d.s24}&perspectiveReference=${d.studioFront}`,
    );
    assert.equal(gone.statusCode, 410);
    const image = await uploadSolid(t, { r: 1, g: 1, b: 1 });
    assert.equal((await createRender(t, d.cStudioS24, image)).statusCode, 410);
    await operator(t, 'PUT', `/rendering/compositions/${d.cStudioS24}/availability`, { available: true });
    assert.equal((await call(t, 'GET', `/v2/compositions/${d.cStudioS24}`)).statusCode, 200);
    assert.equal(
      (await operator(t, 'PUT', '/rendering/compositions/Composition_nope/availability', { available: true }))
        .statusCode,
      404,
    );
  });

  it('rejects bad imports with a clear 400 and changes nothing', async () => {
    const good = await payload();
    const bad: Array<[unknown, RegExp]> = [
      [
        {
          ...good,
          compositions: [
            {
              ...good.compositions[0],
              key: 'x1',
              template: {
                ...good.compositions[0].template,
                printArea: { x: 250, y: 40, width: 100, height: 200, rotation: 0 },
              },
            },
          ],
        },
        /inside the 300x300 background/,
      ],
      [
        {
          ...good,
          compositions: [
            {
              ...good.compositions[0],
              key: 'x2',
              template: { ...good.compositions[0].template, mask: b64(Buffer.from('not an image')) },
            },
          ],
        },
        /mask is not an image/,
      ],
      [
        {
          ...good,
          compositions: [
            { ...good.compositions[0], key: 'x3', productReference: 'Product_0123456789abcdefghjkmnpqrs' },
          ],
        },
        /does not exist/,
      ],
      [
        { ...good, compositions: [{ ...good.compositions[0], key: 'x4', perspectiveKey: 'demo-marble-top' }] },
        /not usable in scene/,
      ],
      [{ ...good, compositions: [{ ...good.compositions[0], key: 'x5', sceneKey: 'nope' }] }, /no scene has key nope/],
      [
        {
          scenes: [
            {
              ...good.scenes[0],
              key: 'x6',
              compatibleProductgroupReferences: ['Productgroup_0123456789abcdefghjkmnpqrs'],
            },
          ],
        },
        /does not exist/,
      ],
      [
        { perspectives: [{ ...good.perspectives[0], key: 'x7', sceneKeys: [], productReferences: [] }] },
        /either sceneKeys/,
      ],
      [
        {
          perspectives: [
            { ...good.perspectives[0], key: 'x8', output: { widthPx: 300, heightPx: 300, format: 'gif' } },
          ],
        },
        /format/,
      ],
      [{ scenes: [], surprise: true }, /surprise/],
      [
        {
          ...good,
          compositions: [
            {
              ...good.compositions[0],
              key: 'x9',
              template: { generate: { kind: 'scene', scene: 'moon', view: 'left' } },
            },
          ],
        },
        /template\.generate\.scene is not a documented field/,
      ],
      [
        {
          ...good,
          compositions: [
            {
              ...good.compositions[0],
              key: 'x10',
              productReference: d.protector,
              template: { generate: { kind: 'front' } },
            },
          ],
        },
        /has no device geometry or case type/,
      ],
      [
        {
          ...good,
          compositions: [
            {
              ...good.compositions[0],
              key: 'x11',
              template: {
                background: 'AAAA',
                uv: 'AAAA',
                layers: 'AAAA',
                backMm: [70, 150],
                material: { baseHex: 'red' },
              },
            },
          ],
        },
        /material/,
      ],
      [
        { ...good, compositions: [{ ...good.compositions[0], key: 'x12', template: { background: 'AAAA' } }] },
        /needs \{background, uv, layers, material, backMm\}, \{generate\} or .*missing mask, printArea/,
      ],
      [
        {
          ...good,
          compositions: [{ ...good.compositions[0], key: 'x13', template: { uv: 'AAAA', background: 'AAAA' } }],
        },
        /a UV-mapped template also needs layers, material, backMm/,
      ],
    ];
    for (const [body, message] of bad) {
      const res = await operator(t, 'POST', '/rendering/import', body);
      assert.equal(res.statusCode, 400, `${message}: ${res.body}`);
      assert.match(res.data.message, message);
    }
    const scenes = await t.db.query(`SELECT import_key FROM scenes WHERE import_key LIKE 'x%'`);
    assert.deepEqual(scenes, []);
    assert.equal((await call(t, 'POST', '/operator/rendering/import', { key: null, body: good })).statusCode, 401);
  });
});
