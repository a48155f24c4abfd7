import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skipWithoutChromium } from '../support/browser.ts';
import { store } from '../orders/helpers.ts';
import { unitsInProduction } from './floor-helpers.ts';
import { stationSuite } from './station-browser.ts';

describe('floor stations and overview in a real browser', { skip: skipWithoutChromium }, () => {
  const station = stationSuite();

  it('QC: a scan and Enter records the verdict in place, beeps, and keeps the input focused; a wrong scan sounds the alarm', async () => {
    const { t, base, page, scan, tones, shoot } = station;
    const { units } = await unitsInProduction(t, 2);
    await page.goto(`${base}/console/production/stations/qc`);
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'code');
    await shoot('station-qc');
    await scan(units[0]);
    await page.getByText('Passed: put it in the packing tray').waitFor();
    assert.equal(page.url(), `${base}/console/production/stations/qc`);
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'code');
    assert.deepEqual(await tones(), [988], 'one high tone: done');

    await scan(units[0]);
    await page.getByRole('alert').getByText(`${units[0]} passed QC already`).waitFor();
    assert.deepEqual((await tones()).slice(1), [220, 165], 'two low tones: refused');
    await shoot('station-qc-refused');

    await page.getByLabel('Fail: misprint').check();
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'code');
    await scan(units[1]);
    await page.getByText('Failed (misprint): put it in the scrap bin').waitFor();
    assert.equal(await page.getByLabel('Pass').isChecked(), true, 'the next scan is a pass again');
    await shoot('station-qc-failed');
  });

  it('pack: lists what is missing, then ships with the label and slip to print', async () => {
    const { t, base, page, scan, shoot } = station;
    const { units } = await unitsInProduction(t, 2);
    await t.s.production.stations.qc(units[0], 'pass');
    await page.goto(`${base}/console/production/stations/pack`);
    await scan(units[0]);
    await page.getByText('1 of 2 cases here: keep the parcel open').waitFor();
    await shoot('station-pack-missing');
    await t.s.production.stations.qc(units[1], 'pass');
    await scan(units[1]);
    await page.getByText('Parcel complete: print the label and the packing slip').waitFor();
    await shoot('station-pack-done');
  });

  it('pack: a combined parcel shows every case of its orders, then ships them as one shipment', async () => {
    const { t, base, page, scan, shoot } = station;
    const combined = (cases: number) =>
      unitsInProduction(t, cases, true, {
        storeReference: store(t, 'DEMO2'),
        shippingKind: 'combined',
        dropshipAddress: undefined,
      });
    const a = await combined(2);
    const b = await combined(1);
    for (const u of [...a.units, ...b.units]) await t.s.production.stations.qc(u, 'pass');
    await page.goto(`${base}/console/production/stations/pack`);
    await scan(a.units[0]);
    await page.getByText('1 of 3 cases here: keep the parcel open').waitFor();
    await page.getByText(`${a.ref}: 1 of 2 here`).waitFor();
    await page.getByText(`${b.ref}: 0 of 1 here`).waitFor();
    await shoot('station-pack-parcel');
    await scan(b.units[0]);
    await page.getByText('2 of 3 cases here: keep the parcel open').waitFor();
    await scan(a.units[1]);
    await page.getByText('Parcel complete: print the label and the packing slip').waitFor();
    await page.getByText(`${a.ref}, ${b.ref}`).waitFor();
    await shoot('station-pack-parcel-done');
  });

  it('the production overview shows stages, late orders, throughput and remakes', async () => {
    const { base, page, shoot } = station;
    await page.goto(`${base}/console/production/overview`);
    await page.getByRole('heading', { name: 'Remake rate by reason' }).waitFor();
    assert.ok((await page.locator('svg.bars').count()) >= 1);
    await shoot('production-overview');
  });
});
