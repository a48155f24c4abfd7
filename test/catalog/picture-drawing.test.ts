import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import {
  type PictureSubject,
  drawPicture,
  pictureSpecs,
  pictureSubject,
  viewsOf,
} from '../../src/modules/catalog/pictures/index.ts';

const device = (key: string) => loadDevices().find((d) => d.key === key)!;
const caseOf = (key: string, type: keyof typeof CASE_TYPES, colorHex?: string) =>
  pictureSubject({ device: device(key), caseType: CASE_TYPES[type], look: colorHex ? { colorHex } : null })!;

type Raw = { data: Buffer; width: number; height: number };
const raw = async (webp: Buffer): Promise<Raw> => {
  const { data, info } = await sharp(webp).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
};
const px = (r: Raw, x: number, y: number) => {
  const i = (Math.round(y) * r.width + Math.round(x)) * 3;
  return [r.data[i], r.data[i + 1], r.data[i + 2]];
};
const dist = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
/** Standard deviation of the grey level in a square around a point. */
const roughness = (r: Raw, cx: number, cy: number, half = 30) => {
  const v: number[] = [];
  for (let y = cy - half; y < cy + half; y++)
    for (let x = cx - half; x < cx + half; x++) {
      const [a, b, c] = px(r, x, y);
      v.push((a + b + c) / 3);
    }
  const mean = v.reduce((s, x) => s + x, 0) / v.length;
  return Math.sqrt(v.reduce((s, x) => s + (x - mean) ** 2, 0) / v.length);
};

// What the API serves of them is in pictures.test.ts.
describe('catalog: product pictures (drawing)', () => {
  it('draws every view of cases and accessories whole: the subject never touches the edge of the picture', async () => {
    const subjects: PictureSubject[] = [
      caseOf('iphone-15', 'wallet'),
      caseOf('pixel-9', 'magsafe'),
      // A round island, and a camera bar running edge to edge.
      caseOf('oneplus-13', 'leather'),
      caseOf('pixel-8-pro', 'tough'),
      { kind: 'screen-protector', device: device('galaxy-s24') },
      { kind: 'wireless-charger', colorHex: '#f2f3f5' },
      { kind: 'crossbody-strap', colorHex: '#2f3136' },
    ];
    for (const s of subjects)
      for (const view of viewsOf(s)) {
        const r = await raw(await drawPicture(s, view));
        assert.deepEqual([r.width, r.height], [1000, 1000]);
        // The backdrop is light grey all round: a clipped subject would darken a border pixel.
        for (let i = 0; i < 1000; i += 7)
          for (const [x, y] of [
            [i, 1],
            [i, 998],
            [1, i],
            [998, i],
          ])
            assert.ok(Math.min(...px(r, x, y)) > 190, `${s.kind} ${view}: border pixel ${x},${y} is ${px(r, x, y)}`);
        // And something is drawn: no flat card (a white charger on the light backdrop varies least).
        const stats = await sharp(r.data, { raw: { width: 1000, height: 1000, channels: 3 } }).stats();
        assert.ok(stats.channels[0].stdev > 10, `${s.kind} ${view} is nearly flat`);
      }
  });

  it('a clear case shows the phone colour through it; an opaque one shows its own; leather has grain', async () => {
    // The middle of the back, below the camera island.
    const mid = async (s: PictureSubject) => {
      const r = await raw(await drawPicture(s, 'back'));
      return { r, c: px(r, 500, 620) };
    };
    const pink = await mid(caseOf('iphone-15', 'clear', '#e8a0b4'));
    const green = await mid(caseOf('iphone-15', 'clear', '#4f8f6a'));
    assert.ok(dist(pink.c, rgb('#e8a0b4')) < 70, `clear over pink shows ${pink.c}`);
    assert.ok(dist(green.c, rgb('#4f8f6a')) < 70, `clear over green shows ${green.c}`);
    const tough = await mid(caseOf('iphone-15', 'tough', '#e8a0b4'));
    assert.ok(Math.max(...tough.c) < 90, `a tough case is dark whatever the phone: ${tough.c}`);
    const leather = await mid(caseOf('iphone-15', 'leather'));
    assert.ok(dist(leather.c, rgb('#8a5a3b')) < 70, `leather is brown: ${leather.c}`);
    assert.ok(
      roughness(leather.r, 500, 620) > roughness(pink.r, 500, 620) + 2,
      'leather has a visible grain, a clear back is smooth',
    );
  });

  it('keys a picture by what it shows: same subject and view, same key; another colour or device, another', () => {
    const a = pictureSpecs(caseOf('iphone-15', 'clear'));
    assert.deepEqual(
      a.map((s) => s.filename),
      ['back.webp', 'angle.webp', 'side.webp'],
    );
    assert.deepEqual(
      a.map((s) => s.key),
      pictureSpecs(caseOf('iphone-15', 'clear')).map((s) => s.key),
    );
    assert.notEqual(a[0].key, pictureSpecs(caseOf('iphone-15', 'clear', '#000000'))[0].key);
    assert.notEqual(a[0].key, pictureSpecs(caseOf('iphone-15-plus', 'clear'))[0].key);
    assert.equal(pictureSubject({ device: null, caseType: CASE_TYPES.clear, look: null }), null);
    assert.equal(pictureSubject({ device: null, caseType: null, look: { accessory: 'screen-protector' } }), null);
  });
});
