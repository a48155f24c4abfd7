/**
 * `npm run mockups:sheet [out.png]`: one PNG grid to look at the mockups all at once. It seeds the
 * demo catalog in a throw-away data folder and renders, through the service's own template code
 * and with one sample artwork: one tile per printable model and 3D stage in the tough case (six
 * models a row), then every case type (material) of two models in every stage and view.
 * `MOCKUP_SHEET_DEVICES=iphone-17-pro,pixel-11` limits the first part to some models;
 * `MOCKUP_SHEET_EXTRA=1` adds the straight-on shots, the demo fixtures' compositions and the
 * product pictures of the 10 newest flagships (or of those models). It then prints the noise figure of every stage plate at 2000 px.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import sharp from 'sharp';
import { loadConfig } from '../src/config.ts';
import { loadDevices } from '../src/modules/catalog/devices.ts';
import { startRuntime } from '../src/runtime.ts';
import { seedDemoOnce } from '../src/seed/demo-keys.ts';
import { type Generator, generatedTemplate } from '../src/modules/rendering/generated.ts';
import { type OutputFormat, composeRender } from '../src/modules/rendering/renderer.ts';
import { FLAT_PATCH, highPassStd } from '../src/modules/rendering/stage/noise.ts';
import { STAGES } from '../src/modules/rendering/stage/stages.ts';
import { renderPlate } from '../src/modules/rendering/stage/template.ts';

const TILE = 180;
/** Six models a row, their three stages side by side. */
const COLS = 18;
const out = process.argv[2] ?? 'test-artifacts/mockups-sheet.png';

/** A colourful artwork, transparent at the top so clear cases show the phone through. */
function sampleArtwork(): Promise<Buffer> {
  const dots = Array.from(
    { length: 30 },
    (_, i) => `<circle cx="${60 + (i % 6) * 156}" cy="${80 + Math.floor(i / 6) * 120}" r="22"/>`,
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="1800">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ff6f61"/><stop offset="0.5" stop-color="#ffd166"/><stop offset="1" stop-color="#06d6a0"/></linearGradient></defs>
  <rect y="700" width="900" height="1100" fill="url(#g)"/>
  <circle cx="450" cy="1120" r="260" fill="#118ab2"/><circle cx="450" cy="1120" r="150" fill="#ffd166"/>
  <text x="450" y="1620" font-size="150" font-weight="700" text-anchor="middle" font-family="sans-serif" fill="#073b4c">SUMMER</text>
  <g fill="#ef476f">${dots}</g>
</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

async function caption(text: string) {
  const safe = text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${TILE}" height="20"><rect width="100%" height="100%" fill="#fff"/><text x="5" y="14" font-size="10" font-family="sans-serif" fill="#333">${safe}</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/**
 * The 3D stages: one tile per printable model and stage (left view) in the tough case, then every
 * case type (material) of two models in every stage and view, with the same artwork.
 */
async function stageTiles(s: Awaited<ReturnType<typeof startRuntime>>, keys: string[] | null, art: Buffer) {
  const rows = await s.db.query<{ id: string; name: string; device_key: string }>(
    'SELECT id, name, device_key FROM products WHERE device_key IS NOT NULL AND ($1::text[] IS NULL OR device_key = ANY($1)) ORDER BY name',
    [keys],
  );
  const shapes = await s.catalog.productShapes(rows.map((r) => r.id));
  const px = Number(process.env.MOCKUP_SHEET_STAGE_PX ?? 400);
  const output = { widthPx: px, heightPx: px, format: 'png' as const };
  const tiles: Array<{ image: Buffer; text: string }> = [];
  const render = async (r: (typeof rows)[number], stage: string, view: string, text: string) => {
    const g: Generator = { kind: 'stage', stage, view };
    const t = await generatedTemplate(s, g, shapes.get(r.id), output);
    tiles.push({ image: (await composeRender({ ...t, output }, art)).media, text });
  };
  const tough = rows.filter(
    (r) => shapes.get(r.id)?.caseType?.key === 'tough' && !shapes.get(r.id)?.device?.preliminary,
  );
  for (const r of tough)
    for (const st of STAGES) await render(r, st.key, 'left', `${shapes.get(r.id)?.device?.model} · ${st.key}`);
  const materials: Array<{ image: Buffer; text: string }> = [];
  const two = ['iphone-17-pro', 'pixel-11'];
  const before = tiles.length;
  for (const key of two)
    for (const r of rows.filter((r) => r.device_key === key && shapes.get(r.id)?.caseType))
      for (const st of STAGES)
        for (const v of st.views) await render(r, st.key, v.key, `${r.name} · ${st.key} ${v.key}`);
  materials.push(...tiles.splice(before));
  return { models: tiles, materials };
}

/** The 10 newest flagships with final dimensions launched by the demo catalog's date. */
function flagships(date = '2026-11-24') {
  return loadDevices()
    .filter((d) => d.flagship && !d.preliminary && d.releaseDate <= date)
    .sort((a, b) => b.releaseDate.localeCompare(a.releaseDate) || a.key.localeCompare(b.key))
    .slice(0, 10);
}

/** The stored compositions (straight-on shots, demo fixtures) of some models, and their product pictures. */
async function extraTiles(s: Awaited<ReturnType<typeof startRuntime>>, keys: string[], art: Buffer) {
  const rows = await s.db.query<{
    product_id: string;
    name: string;
    perspective: string;
    generator: Generator | null;
    width_px: number;
    height_px: number;
    format: OutputFormat;
  }>(
    `SELECT c.product_id, p.name, pe.import_key AS perspective, c.generator, pe.width_px, pe.height_px, pe.format
       FROM compositions c JOIN products p ON p.id = c.product_id JOIN scenes sc ON sc.id = c.scene_id
       JOIN perspectives pe ON pe.id = c.perspective_id
      WHERE p.device_key = ANY($1) OR c.import_key LIKE 'demo-%'
      ORDER BY sc.seq, pe.seq, p.name`,
    [keys],
  );
  const shapes = await s.catalog.productShapes(rows.map((r) => r.product_id));
  const tiles: Array<{ image: Buffer; text: string }> = [];
  for (const r of rows) {
    if (!r.generator) continue;
    const output = { widthPx: r.width_px, heightPx: r.height_px, format: r.format };
    const t = await generatedTemplate(s, r.generator, shapes.get(r.product_id), output);
    tiles.push({ image: (await composeRender({ ...t, output }, art)).media, text: `${r.name} · ${r.perspective}` });
  }
  const products = await s.db.query<{ id: string; name: string }>(
    'SELECT id, name FROM products WHERE device_key = ANY($1) ORDER BY name',
    [keys],
  );
  // The catalog's own pictures (drawn on first use), so the sheet shows what the shop gets.
  for (const p of products)
    for (const pic of await s.catalog.productPictures(p.id))
      tiles.push({ image: pic.bytes, text: `${p.name} · picture ${pic.view}` });
  return tiles;
}

/** The tiles as one grid, COLS wide, each section starting on a new row. */
async function writeSheet(sections: Array<Array<{ image: Buffer; text: string }>>) {
  const cell = TILE + 20;
  const parts = [];
  let row = 0;
  for (const tiles of sections) {
    for (const [i, t] of tiles.entries()) {
      const left = (i % COLS) * TILE;
      const top = (row + Math.floor(i / COLS)) * cell;
      const image = await sharp(t.image).resize(TILE, TILE, { fit: 'contain', background: '#ffffff' }).png().toBuffer();
      parts.push({ input: image, left, top }, { input: await caption(t.text), left, top: top + TILE });
    }
    row += Math.ceil(tiles.length / COLS);
  }
  await sharp({ create: { width: COLS * TILE, height: row * cell, channels: 3, background: '#ffffff' } })
    .composite(parts)
    .png({ compressionLevel: 9 })
    .toFile(out);
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'mockup-sheet-'));
  const s = await startRuntime(loadConfig({ DATA_DIR: dataDir, SECRET_KEY: 'sheet' }), {
    log: pino({ level: 'silent' }) as never,
  });
  await seedDemoOnce(s, dataDir);
  const art = await sampleArtwork();
  // MOCKUP_SHEET_DEVICES=a,b restricts the sheet to some models.
  const keys = process.env.MOCKUP_SHEET_DEVICES?.split(',') ?? null;
  const { models, materials } = await stageTiles(s, keys, art);
  const sections = [models, materials];
  if (process.env.MOCKUP_SHEET_EXTRA === '1')
    sections.push(await extraTiles(s, keys ?? flagships().map((d) => d.key), art));
  await writeSheet(sections);
  console.log(`${models.length} model x stage tiles, ${materials.length} material tiles → ${out}`);
  // The noise figure of every stage plate at 2000 px (MOCKUP_SHEET_NOISE_PX), on a flat floor patch.
  const npx = Number(process.env.MOCKUP_SHEET_NOISE_PX ?? 2000);
  for (const st of STAGES)
    for (const v of st.views) {
      const raw = await renderPlate(st, v, { width: npx, height: npx });
      const std = highPassStd(raw, npx, FLAT_PATCH(npx));
      console.log(`noise ${st.key}/${v.key} at ${npx} px: ${std.toFixed(2)} levels (high-pass std of a floor patch)`);
    }
  await s.db.close();
  rmSync(dataDir, { recursive: true, force: true });
}

await main();
process.exit(0);
