/**
 * `tsx scripts/mockups/preview.ts <scene> <view> <device> [out.png]`: one strip to judge a bake
 * quickly: the plate as baked, then the artwork composited through its UV map and layers in three
 * case types (clear, tough, leather), as the service renders them. Reads assets/mockups/ (or
 * MOCKUP_ASSETS_DIR) and needs no database, unlike the contact sheet.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { MOCKUP_ASSETS } from '../../src/modules/rendering/generated.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { composeRender } from '../../src/modules/rendering/renderer.ts';

const [scene, view, key, out = `test-artifacts/preview-${scene}-${view}-${key}.png`] = process.argv.slice(2);
const device = loadDevices().find((d) => d.key === key);
if (!scene || !view || !device) throw new Error('usage: preview.ts <scene> <view> <device> [out.png]');
const dir = join(process.env.MOCKUP_ASSETS_DIR ?? MOCKUP_ASSETS, scene, view, key);
const [background, uv, layers, meta] = await Promise.all(
  ['background.webp', 'uv.png', 'layers.png', 'template.json'].map((f) => readFile(join(dir, f))),
);
const { width = 0, height = 0 } = await sharp(background).metadata();
// Colourful at the bottom, transparent at the top: clear cases show the phone through it.
const art = await sharp(
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="900" height="1800">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ff6f61"/><stop offset="0.5" stop-color="#ffd166"/><stop offset="1" stop-color="#06d6a0"/></linearGradient></defs>
  <rect y="700" width="900" height="1100" fill="url(#g)"/><circle cx="450" cy="1120" r="260" fill="#118ab2"/>
  <circle cx="450" cy="1120" r="150" fill="#ffd166"/></svg>`),
)
  .png()
  .toBuffer();
const tiles = [await sharp(background).png().toBuffer()];
for (const ct of [CASE_TYPES.clear, CASE_TYPES.tough, CASE_TYPES.leather])
  tiles.push(
    (
      await composeRender(
        {
          background,
          uv,
          layers,
          backMm: JSON.parse(meta.toString()).backMm,
          material: materialFor(ct, phoneColour(device)),
          output: { widthPx: width, heightPx: height, format: 'png' },
        },
        art,
      )
    ).media,
  );
await sharp({ create: { width: width * tiles.length, height, channels: 3, background: '#fff' } })
  .composite(tiles.map((input, i) => ({ input, left: i * width, top: 0 })))
  .png()
  .toFile(out);
console.log(out);
