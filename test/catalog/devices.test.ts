import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type DeviceGeometry, checkDevices, loadDevices } from '../../src/modules/catalog/devices.ts';

const clone = (d: DeviceGeometry): any => structuredClone(d);
const refused = (list: unknown, message: RegExp) =>
  assert.throws(
    () => checkDevices(list, 'devices'),
    (err: any) => err.status === 400 && message.test(err.message),
  );

describe('catalog: the device table', () => {
  const devices = loadDevices();

  it('holds at least 40 models of at least 4 brands, each with a plausible geometry', () => {
    assert.ok(devices.length >= 40, `${devices.length} devices`);
    const brands = new Set(devices.map((d) => d.brand));
    for (const b of ['Apple', 'Samsung', 'Google']) assert.ok(brands.has(b), b);
    assert.ok(brands.size >= 4);
    for (const d of devices) {
      assert.ok(d.body.widthMm > 55 && d.body.widthMm < 85, `${d.key} width`);
      assert.ok(d.body.heightMm > 120 && d.body.heightMm < 175, `${d.key} height`);
      assert.ok(d.camera.lenses.length >= 1, `${d.key} lenses`);
      assert.ok(
        d.cutouts.some((c) => c.side === 'bottom' && c.kind === 'port'),
        `${d.key} port`,
      );
      assert.ok(d.colors.length >= 2, `${d.key} colours`);
      assert.match(d.releaseDate, /^\d{4}-\d{2}-\d{2}$/);
    }
    assert.equal(new Set(devices.map((d) => d.key)).size, devices.length);
  });

  it('refuses a row without a dimension, naming the row and the field', () => {
    const d = clone(devices[3]);
    delete d.body.depthMm;
    refused([devices[0], devices[1], devices[2], d], /^devices\[3\]\.body\.depthMm is required/);
  });

  it('refuses a camera island outside the body', () => {
    const d = clone(devices[0]);
    d.camera.xMm = d.body.widthMm - d.camera.widthMm + 1;
    refused([d], /^devices\[0\]\.camera\.xMm puts the camera island outside the body/);
    const e = clone(devices[0]);
    e.camera.yMm = e.body.heightMm;
    refused([devices[1], e], /^devices\[1\]\.camera\.yMm/);
  });

  it('refuses lenses outside the island, buttons past the side, oversized corners and duplicate keys', () => {
    const lens = clone(devices[0]);
    lens.camera.lenses[1].xMm = lens.camera.widthMm;
    refused([lens], /^devices\[0\]\.camera\.lenses\[1\] lies outside the camera island/);
    const round = clone(devices.find((d) => d.camera.shape === 'circle')!);
    round.camera.lenses[0].xMm = round.camera.lenses[0].diameterMm / 2;
    round.camera.lenses[0].yMm = round.camera.lenses[0].diameterMm / 2;
    refused([round], /^devices\[0\]\.camera\.lenses\[0\] lies outside the camera island/);
    const button = clone(devices[0]);
    button.cutouts[0].offsetMm = button.body.heightMm;
    refused([button], /^devices\[0\]\.cutouts\[0\]\.offsetMm runs past the end/);
    const corner = clone(devices[0]);
    corner.body.cornerRadiusMm = 60;
    refused([corner], /^devices\[0\]\.body\.cornerRadiusMm/);
    refused([devices[0], devices[0]], /^devices\[1\]\.key iphone-11 appears twice/);
    const date = clone(devices[0]);
    date.releaseDate = '2024-02-30';
    refused([date], /^devices\[0\]\.releaseDate/);
  });
});
