import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOrder, orderBody, products, uploadImage } from '../orders/helpers.ts';
import { operator } from '../support/app.ts';
import { skipWithoutChromium } from '../support/browser.ts';
import { stationSuite } from './station-browser.ts';

describe('the print station in a real browser', { skip: skipWithoutChromium }, () => {
  const station = stationSuite();

  it('scan a batch sheet and Enter: the batch is printed, with a tone; a case code or a printed batch is refused aloud', async () => {
    const { t, base, page, scan, tones, shoot } = station;
    const image = await uploadImage(t);
    const ref = await createOrder(
      t,
      orderBody(t, image, {
        orderlines: [{ productReference: products(t).clear, imageReference: image, quantity: 2 }],
      }),
    );
    assert.equal((await operator(t, 'POST', `/orders/${ref}/start-production`)).statusCode, 204);
    const batched = await operator(t, 'POST', '/production/batches', { flush: true });
    const batch = batched.data.batches[0].reference as string;
    const unit = (await operator(t, 'GET', `/production/batches/${batch}`)).data.slots[0].unitReference as string;

    await page.goto(`${base}/console/production/stations/print`);
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'code');
    await page.getByText(`then scan its batch sheet`).waitFor();
    await shoot('station-print');

    await scan(unit);
    await page.getByRole('alert').getByText(`${unit} is a case, not a batch`).waitFor();
    assert.deepEqual(await tones(), [220, 165], 'two low tones: refused');
    await shoot('station-print-refused');

    // A wedge scanner with Caps Lock on sends capitals: still the batch.
    await scan(batch.toUpperCase());
    await page.getByText('Printed: take the jig to QC').waitFor();
    assert.deepEqual((await tones()).slice(2), [988], 'one high tone: done');
    assert.equal(page.url(), `${base}/console/production/stations/print`);
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'code');
    const after = (await operator(t, 'GET', `/production/batches/${batch}`)).data;
    assert.equal(after.status, 'printed');
    assert.ok(after.slots.every((s: any) => s.state === 'printed'));
    await shoot('station-print-done');

    await scan(batch);
    await page.getByRole('alert').getByText(`Batch ${batch} is printed`).waitFor();
  });
});
