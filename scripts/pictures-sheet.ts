/**
 * Draws product pictures straight from the device table, without a database, into one PNG grid to
 * look at: `npm run pictures:sheet [-- --devices iphone-17-pro,pixel-10 --out sheet.png]`. Without
 * --devices: the four newest flagships of each brand, every case type, and every accessory.
 */
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { CASE_TYPES, CASE_TYPE_KEYS } from '../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../src/modules/catalog/devices.ts';
import { ACCESSORY_KINDS } from '../src/modules/catalog/look.ts';
import { type PictureSubject, drawPicture, pictureSubject, viewsOf } from '../src/modules/catalog/pictures/index.ts';

const { values } = parseArgs({
  options: { devices: { type: 'string' }, out: { type: 'string', default: 'pictures-sheet.png' } },
});
const all = loadDevices();
const devices = values.devices
  ? values.devices.split(',').map((k) => all.find((d) => d.key === k) ?? Promise.reject(new Error(`no device ${k}`)))
  : [...new Set(all.map((d) => d.brand))].flatMap((brand) =>
      all
        .filter((d) => d.brand === brand && d.flagship)
        .sort((a, b) => b.releaseDate.localeCompare(a.releaseDate))
        .slice(0, 4),
    );
const subjects: PictureSubject[] = [];
for (const d of await Promise.all(devices))
  for (const t of CASE_TYPE_KEYS) subjects.push(pictureSubject({ device: d, caseType: CASE_TYPES[t], look: null })!);
for (const accessory of ACCESSORY_KINDS)
  subjects.push(pictureSubject({ device: all[all.length - 1], caseType: null, look: { accessory } })!);

const TILE = 240;
const tiles: Buffer[] = [];
for (const s of subjects)
  for (const view of viewsOf(s))
    tiles.push(
      await sharp(await drawPicture(s, view))
        .resize(TILE, TILE)
        .png()
        .toBuffer(),
    );
const cols = 15;
await sharp({
  create: { width: cols * TILE, height: Math.ceil(tiles.length / cols) * TILE, channels: 3, background: '#ffffff' },
})
  .composite(tiles.map((input, i) => ({ input, left: (i % cols) * TILE, top: Math.floor(i / cols) * TILE })))
  .png()
  .toFile(values.out);
console.log(`${tiles.length} pictures -> ${values.out}`);
