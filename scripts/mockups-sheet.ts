/**
 * `npm run mockups:sheet [out.png]`: one PNG grid of the mockups rendered with a sample artwork, so
 * anyone can look at all of them at once: the straight-on shot of each flagship in every case type,
 * then every baked 3D scene view of each flagship (case types taking turns), then (when given a
 * directory of product pictures with MOCKUP_PICTURES) those pictures.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { CASE_TYPES, CASE_TYPE_KEYS } from '../src/modules/catalog/casetypes.ts';
import type { BlobStore } from '../src/platform/storage.ts';
import { type Generator, generatedTemplate } from '../src/modules/rendering/generated.ts';
import { composeRender } from '../src/modules/rendering/renderer.ts';
import { bakedScenes, flagships } from '../src/modules/rendering/scenes.ts';

const TILE = 320;
const COLS = 10;
const out = process.argv[2] ?? 'test-artifacts/mockups-sheet.png';

/** A colourful artwork with transparency round a badge, so clear cases show the phone through. */
function sampleArtwork(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="1800">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ff6f61"/><stop offset="0.5" stop-color="#ffd166"/><stop offset="1" stop-color="#06d6a0"/></linearGradient></defs>
  <rect y="700" width="900" height="1100" fill="url(#g)"/>
  <circle cx="450" cy="1120" r="260" fill="#118ab2"/><circle cx="450" cy="1120" r="150" fill="#ffd166"/>
  <text x="450" y="1620" font-size="150" font-weight="700" text-anchor="middle" font-family="sans-serif" fill="#073b4c">SUMMER</text>
  <g fill="#ef476f">${Array.from({ length: 30 }, (_, i) => `<circle cx="${60 + (i % 6) * 156}" cy="${80 + Math.floor(i / 6) * 120}" r="22"/>`).join('')}</g>
</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

const blobs = new Map<string, Buffer>();
const store = {
  get: async (k: string) => blobs.get(k) ?? null,
  put: async (k: string, b: Buffer) => void blobs.set(k, b),
} as unknown as BlobStore;

async function label(text: string) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${TILE}" height="26"><rect width="100%" height="100%" fill="#fff"/><text x="6" y="18" font-size="14" font-family="sans-serif" fill="#333">${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

async function main() {
  const art = await sampleArtwork();
  const tiles: Array<{ image: Buffer; caption: string }> = [];
  const devices = flagships();
  const output = { widthPx: TILE * 2, heightPx: TILE * 2, format: 'png' as const };
  const render = async (g: Generator, d: (typeof devices)[number], type: (typeof CASE_TYPE_KEYS)[number]) => {
    const t = await generatedTemplate(store, g, { device: d, caseType: CASE_TYPES[type] }, output);
    return (await composeRender({ ...t, output }, art)).media;
  };
  for (const d of devices)
    for (const type of CASE_TYPE_KEYS)
      tiles.push({ image: await render({ kind: 'front' }, d, type), caption: `${d.model} ${type} · front` });
  let turn = 0;
  for (const s of bakedScenes())
    for (const v of s.views)
      for (const d of devices.filter((x) => s.devices.includes(x.key))) {
        const type = CASE_TYPE_KEYS[turn++ % CASE_TYPE_KEYS.length];
        tiles.push({
          image: await render({ kind: 'scene', scene: s.key, view: v.key }, d, type),
          caption: `${d.model} ${type} · ${s.key}/${v.key}`,
        });
      }
  const pictures = process.env.MOCKUP_PICTURES;
  if (pictures)
    for (const f of readdirSync(pictures)
      .filter((n) => /\.(png|jpe?g|webp)$/.test(n))
      .sort())
      tiles.push({ image: readFileSync(join(pictures, f)), caption: f });
  const rows = Math.ceil(tiles.length / COLS);
  const cell = TILE + 26;
  const parts = [];
  for (const [i, t] of tiles.entries()) {
    const left = (i % COLS) * TILE;
    const top = Math.floor(i / COLS) * cell;
    parts.push({
      input: await sharp(t.image).resize(TILE, TILE, { fit: 'contain', background: '#fff' }).png().toBuffer(),
      left,
      top,
    });
    parts.push({ input: await label(t.caption), left, top: top + TILE });
  }
  await sharp({ create: { width: COLS * TILE, height: rows * cell, channels: 3, background: '#ffffff' } })
    .composite(parts)
    .png({ compressionLevel: 9 })
    .toFile(out);
  console.log(`${tiles.length} tiles → ${out}`);
}

await main();
process.exit(0);
