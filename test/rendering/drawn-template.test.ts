import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { drawingsStored, generatedTemplate } from '../../src/modules/rendering/generated.ts';
import { pixelJobsRun } from '../../src/modules/rendering/pixel-threads.ts';
import { isRawTemplate } from '../../src/modules/rendering/raw-template.ts';
import { stage } from '../../src/modules/rendering/stage/stages.ts';
import { type Template, composeRender, templatesDecoded } from '../../src/modules/rendering/renderer.ts';
import { rawPictures } from '../../src/modules/rendering/templates.ts';
import { LocalBlobStore } from '../../src/platform/storage.ts';

// A stage template drawn on this node goes to the renderer as drawn; its PNGs are stored afterwards.
describe('a drawn stage template handed to the renderer without its PNGs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'drawn-template-'));
  const blobs = new LocalBlobStore(dir);
  const warned: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const log = { warn: (fields: Record<string, unknown>, msg: string) => warned.push({ fields, msg }) } as never;
  after(() => rmSync(dir, { recursive: true, force: true }));
  const device = loadDevices().find((d) => d.key === 'iphone-15')!;
  const shape = { device, caseType: CASE_TYPES.clear } as never;
  const g = { kind: 'stage' as const, stage: 'desk', view: 'right' };

  it('renders byte for byte what its stored PNGs render, and another node reads those PNGs', async () => {
    const output = { widthPx: 420, heightPx: 360, format: 'png' as const };
    // Every pixel its own colour and alpha: a UV map off by one sample shows.
    const noise = Buffer.from(Array.from({ length: 300 * 600 * 4 }, (_, i) => (i * 2654435761) >>> 24));
    const art = await sharp(noise, { raw: { width: 300, height: 600, channels: 4 } })
      .png()
      .toBuffer();
    const parts = await generatedTemplate({ blobs, log }, g, shape, output);
    assert.ok('load' in parts);
    const drawn = await parts.load();
    assert.ok(isRawTemplate(drawn), 'handed over as drawn');
    assert.equal(drawn.background.buffer instanceof SharedArrayBuffer, true);
    const png = rawPictures(drawn);
    const pictures = { background: await png.background(), uv: await png.uv(), layers: await png.layers() };
    const { load: _load, cacheKey: _key, ...look } = parts;
    const fromDrawing: Template = { ...look, load: async () => drawn, cacheKey: 'drawn-as-drawn', output };
    const fromPngs: Template = { ...look, ...pictures, output };
    const a = await composeRender(fromDrawing, art);
    const b = await composeRender(fromPngs, art);
    assert.ok(a.media.equals(b.media), 'the same pixels');
    assert.equal(a.thumbhash, b.thumbhash);

    await drawingsStored();
    const cases = pixelJobsRun().case;
    const decodes = templatesDecoded();
    const again = await generatedTemplate({ blobs, log }, g, shape, output);
    assert.ok('load' in again);
    const read = await again.load();
    assert.ok(!isRawTemplate(read), 'read from the blob store');
    assert.equal(pixelJobsRun().case, cases, 'not drawn again');
    for (const k of ['background', 'uv', 'layers'] as const) assert.ok(read[k].equals(pictures[k]), k);
    const c = await composeRender({ ...again, cacheKey: 'read-back', output }, art);
    assert.equal(templatesDecoded() - decodes, 1);
    assert.ok(c.media.equals(a.media));
    assert.deepEqual(warned, []);
  });

  it('logs a drawing it could not store on the module logger, and draws it again when next needed', async () => {
    const output = { widthPx: 300, heightPx: 260, format: 'png' as const };
    // A blob store that refuses the layers file, as a full disk or an unreachable bucket would.
    const refusing = Object.assign(Object.create(blobs), {
      putWritten: async (key: string, write: (path: string) => Promise<unknown>) => {
        if (key.endsWith('/layers.png')) throw new Error('no space left on device');
        return blobs.putWritten(key, write);
      },
    });
    const parts = await generatedTemplate({ blobs: refusing, log }, g, shape, output);
    assert.ok('load' in parts);
    assert.ok(isRawTemplate(await parts.load()), 'handed over as drawn');
    await drawingsStored();
    assert.equal(warned.length, 1);
    assert.match(warned[0].msg, /drawn template not stored/);
    assert.equal(warned[0].fields.key, `${parts.cacheKey}/layers.png`);
    assert.match((warned[0].fields.err as Error).message, /no space left on device/);
    const cases = pixelJobsRun().case;
    const again = await generatedTemplate({ blobs, log }, g, shape, output);
    assert.ok('load' in again);
    assert.ok(isRawTemplate(await again.load()), 'drawn again: the stored drawing is incomplete');
    assert.equal(pixelJobsRun().case, cases + 1);
    await drawingsStored();
  });

  it('draws a model again when its geometry changes, and the plate and case again when the stage changes', async () => {
    const output = { widthPx: 320, heightPx: 280, format: 'png' as const };
    const art = await sharp({ create: { width: 60, height: 120, channels: 3, background: '#e63946' } })
      .png()
      .toBuffer();
    const drawn = async (s: typeof shape) => {
      const parts = await generatedTemplate({ blobs, log }, g, s, output);
      assert.ok('load' in parts);
      const before = pixelJobsRun();
      const media = (await composeRender({ ...parts, output }, art)).media;
      await drawingsStored();
      const after = pixelJobsRun();
      return { key: parts.cacheKey, media, cases: after.case - before.case, plates: after.plate - before.plate };
    };
    const first = await drawn(shape);
    assert.equal(first.cases, 1, 'a model never drawn in this stage view is drawn');
    const same = await drawn(shape);
    assert.equal(same.key, first.key);
    assert.equal(same.cases, 0, 'the same geometry is read back, not drawn again');
    // The operator re-imports the model with its camera island moved: a new drawing, the plate kept.
    const moved = { ...device, camera: { ...device.camera, xMm: device.camera.xMm + 4, yMm: device.camera.yMm + 3 } };
    const regeometry = await drawn({ device: moved, caseType: CASE_TYPES.clear } as never);
    assert.notEqual(regeometry.key, first.key);
    assert.equal(regeometry.cases, 1, 'the changed geometry is drawn');
    assert.equal(regeometry.plates, 0, "the stage's plate is kept");
    assert.ok(!regeometry.media.equals(first.media), 'the render shows the moved camera cut-out');
    // The stage changes (its key light moves): the plate and the case are drawn again.
    const desk = stage('desk')!;
    const light = desk.light;
    desk.light = [light[0] - 0.3, light[1] + 0.2, light[2]];
    try {
      const relit = await drawn(shape);
      assert.notEqual(relit.key, first.key);
      assert.equal(relit.plates, 1, 'the changed stage draws its plate again');
      assert.equal(relit.cases, 1, 'and the case in it');
      assert.ok(!relit.media.equals(first.media));
    } finally {
      desk.light = light;
    }
    assert.equal((await drawn(shape)).key, first.key, 'the stage as it is reads its drawing back');
  });
});
