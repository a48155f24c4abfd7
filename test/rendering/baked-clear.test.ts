import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES, type CaseTypeKey } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { printFit } from '../../src/modules/catalog/geometry.ts';
import { LocalBlobStore } from '../../src/platform/storage.ts';
import { MOCKUP_ASSETS, generatedTemplate } from '../../src/modules/rendering/generated.ts';
import { composeRender } from '../../src/modules/rendering/renderer.ts';

// A baked scene's case surface spans the case's outline, rim and side wall included. A clear shell
// is printed on its flat back only: its rim and wall show the phone through the shell, in the
// phone's colour, also under an artwork that covers everything. No case's side wall is printed.

const device = loadDevices().find((d) => d.key === 'iphone-17-pro')!;
const dir = join(MOCKUP_ASSETS, 'studio', 'left', device.key);
const SIZE = 1000;

/** Blue everywhere but a transparent square in the middle. */
const artwork = () =>
  sharp({ create: { width: 900, height: 1800, channels: 4, background: '#2050d0' } })
    .composite([
      {
        input: { create: { width: 300, height: 300, channels: 4, background: '#000000' } },
        left: 300,
        top: 1100,
        blend: 'dest-out',
      },
    ])
    .png()
    .toBuffer();

async function render(ct: CaseTypeKey, art: Buffer) {
  const output = { widthPx: SIZE, heightPx: SIZE, format: 'png' as const };
  const g = { kind: 'scene' as const, scene: 'studio', view: 'left' };
  const t = await generatedTemplate(
    { blobs: new LocalBlobStore('/nonexistent'), log: { warn: () => {} } },
    g,
    { device, caseType: CASE_TYPES[ct], colour: null },
    output,
  );
  return sharp((await composeRender({ ...t, output }, art)).media)
    .raw()
    .toBuffer();
}

describe('a clear case in a baked scene', () => {
  it('shows the phone through its unprinted rim and the artwork’s transparent parts, and prints only its flat back; no wall is printed', async () => {
    const [uvPng, layersPng, meta] = await Promise.all(
      ['uv.png', 'layers.png', 'template.json'].map((f) => readFile(join(dir, f))),
    );
    const backMm = (JSON.parse(meta.toString()) as { backMm: [number, number] }).backMm;
    const uv = await sharp(uvPng).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer();
    const u16 = new Uint16Array(uv.buffer, uv.byteOffset, uv.byteLength / 2);
    const layers = await sharp(layersPng).raw().toBuffer({ resolveWithObject: true });
    const fit = printFit(device, CASE_TYPES.clear);
    const rimX = (backMm[0] - fit.widthMm) / 2;
    const rimY = (backMm[1] - fit.heightMm) / 2;
    const art = await artwork();
    const clear = await render('clear', art);
    const tough = await render('tough', art);
    // Where each fully covered pixel of the case lies: on the rim (past the print area by half a mm
    // and more), on the flat back (a mm and more inside it) or in the artwork's transparent square.
    const seen = { rim: [0, 0, 0], back: [0, 0, 0], hole: [0, 0, 0] };
    // The side wall: the bake maps it to the outline's straight edges (u or v at its end).
    const wall = [0, 0];
    const phoneLike = (px: Buffer, i: number) => px[i * 3] > px[i * 3 + 2] + 20;
    for (let i = 0; i < SIZE * SIZE; i++) {
      if (layers.data[i * layers.info.channels] < 255) continue;
      const x = (u16[i * 3] / 65535) * backMm[0];
      const y = (u16[i * 3 + 1] / 65535) * backMm[1];
      if (u16[i * 3] === 0 || u16[i * 3] === 65535) {
        wall[0]++;
        // The tough shell's own dark grey, not the blue artwork stretched down the wall.
        if (tough[i * 3 + 2] < 90 && tough[i * 3 + 2] < tough[i * 3] + 30) wall[1]++;
      }
      const out = Math.max(rimX - x, x - (backMm[0] - rimX), rimY - y, y - (backMm[1] - rimY));
      const ax = (x - rimX) / fit.widthMm;
      const ay = (y - rimY) / fit.heightMm;
      // The transparent square spans 0.32-0.64 of the print area across, 0.61-0.78 down.
      const inSquare = (m: number) => ax > 0.32 + m && ax < 0.64 - m && ay > 0.61 + m && ay < 0.78 - m;
      const part = out > 0.5 ? 'rim' : inSquare(0.03) ? 'hole' : out < -1 && !inSquare(-0.03) ? 'back' : null;
      if (!part) continue;
      seen[part][0]++;
      if (phoneLike(clear, i)) seen[part][1]++;
      if (phoneLike(tough, i)) seen[part][2]++;
    }
    const share = (p: keyof typeof seen, k: 1 | 2) => seen[p][k] / seen[p][0];
    assert.ok(seen.rim[0] > 2000, `the rim and wall cover ${seen.rim[0]} pixels`);
    assert.ok(share('rim', 1) > 0.97, `the clear rim shows the phone (${(share('rim', 1) * 100).toFixed(1)} %)`);
    assert.ok(share('rim', 2) < 0.02, 'a tough case prints its rounded edge, the artwork to its outline');
    assert.ok(
      seen.hole[0] > 2000 && share('hole', 1) > 0.97,
      'the phone shows through the artwork’s transparent parts',
    );
    assert.ok(wall[0] > 1000 && wall[1] / wall[0] > 0.97, `the side wall is unprinted (${wall[1]} of ${wall[0]})`);
    assert.ok(share('back', 1) < 0.01, `the flat back is printed (${(share('back', 1) * 100).toFixed(1)} % phone)`);
  });
});
