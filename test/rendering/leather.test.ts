import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { type CaseType, CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { renderPlate, stageTemplate } from '../../src/modules/rendering/stage/template.ts';
import { serviceModule, serviceModuleArgs } from '../support/entry.ts';

const run = promisify(execFile);
const src = (path: string) => JSON.stringify(serviceModule(`modules/${path}`));

/**
 * A fresh process draws the grain tile and a leather case in the studio at 400 px (plate, case and
 * a composed render with a colourful artwork) and prints the digests of their bytes. The script is
 * CommonJS around an async function, not `--input-type=module`: the compiled renderer's worker
 * threads inherit the process's flags, and that one is refused for a thread started from a file.
 */
async function leatherInFreshProcess(): Promise<{ grain: string; background: string; render: string }> {
  const script = `(async () => {
    const { createHash } = await import('node:crypto');
    const sharp = (await import('sharp')).default;
    const { CASE_TYPES } = await import(${src('catalog/casetypes.ts')});
    const { loadDevices } = await import(${src('catalog/devices.ts')});
    const { grain } = await import(${src('rendering/fit.ts')});
    const { materialFor, phoneColour } = await import(${src('rendering/materials.ts')});
    const { composeRender } = await import(${src('rendering/renderer.ts')});
    const { STAGES } = await import(${src('rendering/stage/stages.ts')});
    const { renderPlate, stageTemplate } = await import(${src('rendering/stage/template.ts')});
    const digest = (b) => createHash('sha256').update(b).digest('hex');
    const size = { width: 400, height: 400 };
    const device = loadDevices().find((d) => d.key === 'iphone-15');
    const st = STAGES[0];
    const plate = await sharp(await renderPlate(st, st.views[0], size), { raw: { ...size, channels: 3 } }).png().toBuffer();
    const ct = CASE_TYPES.leather;
    const t = await stageTemplate(plate, st, st.views[0], device, ct, materialFor(ct, phoneColour(device)), size);
    const art = await sharp({ create: { width: 300, height: 600, channels: 3, background: '#e0b040' } }).png().toBuffer();
    const out = await composeRender({ ...t, output: { widthPx: 400, heightPx: 400, format: 'png' } }, art);
    console.log(JSON.stringify({
      grain: digest(await grain()),
      background: digest(await sharp(t.background).raw().toBuffer()),
      render: digest(await sharp(out.media).raw().toBuffer()),
    }));
    process.exit(0);
  })();`;
  const { stdout } = await run(process.execPath, [...serviceModuleArgs(), '-e', script]);
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
}

describe('leather', () => {
  it('renders the same bytes in two fresh processes: grain tile, side wall and composed render', async () => {
    const [a, b] = [await leatherInFreshProcess(), await leatherInFreshProcess()];
    assert.match(a.render, /^[0-9a-f]{64}$/);
    assert.deepEqual(a, b);
  });

  it('shows the grain and a stitched seam on the side wall of a leather case in a 3D stage', async () => {
    const device = loadDevices().find((d) => d.key === 'iphone-15')!;
    const st = STAGES[0];
    const size = { width: 800, height: 800 };
    const plate = await sharp(await renderPlate(st, st.views[0], size), { raw: { ...size, channels: 3 } })
      .png()
      .toBuffer();
    const leather = CASE_TYPES.leather;
    const material = materialFor(leather, phoneColour(device));
    const withWall = await stageTemplate(plate, st, st.views[0], device, leather, material, size);
    // The same case, its wall plain: the same colour, light and sheen, no grain and no seam.
    const plain: CaseType = { ...leather, material: { ...leather.material, finish: 'matte' } };
    const plainWall = await stageTemplate(plate, st, st.views[0], device, plain, { ...material, grain: 0 }, size);
    const a = await sharp(withWall.background).raw().toBuffer();
    const b = await sharp(plainWall.background).raw().toBuffer();
    const lum = (p: Buffer, i: number) => 0.2126 * p[i] + 0.7152 * p[i + 1] + 0.0722 * p[i + 2];
    // The side wall is the only part of the background the leather changes: compare it pixel by pixel.
    const ratios: number[] = [];
    for (let i = 0; i < a.length; i += 3)
      if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2])
        ratios.push(lum(a, i) / Math.max(1, lum(b, i)));
    assert.ok(ratios.length > 800, `${ratios.length} wall pixels differ`);
    const mean = ratios.reduce((s, r) => s + r, 0) / ratios.length;
    const sd = Math.sqrt(ratios.reduce((s, r) => s + (r - mean) ** 2, 0) / ratios.length);
    assert.ok(sd > 0.04, `grain on the wall: the wall's light varies by ${sd.toFixed(3)}`);
    assert.ok(Math.abs(mean - 1) < 0.08, `the grain keeps the wall's colour on average (${mean.toFixed(3)})`);
    const thread = ratios.filter((r) => r > 1.25).length;
    assert.ok(thread > 60, `${thread} pixels of pale thread on the wall`);
    assert.ok(thread < ratios.length / 4, 'the seam is a thin line of dashes');
  });
});
