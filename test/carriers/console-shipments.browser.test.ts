import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { OPERATOR_USER } from '../dashboard/helpers.ts';
import { ADDRESS, createOrder, orderBody, startProduction, uploadImage } from '../orders/helpers.ts';
import { type TestApp, call, servedApp } from '../support/app.ts';
import { type OpenBrowser, openBrowser, shoot as shootPage, signIn, skipWithoutChromium } from '../support/browser.ts';
import { SendcloudStandIn } from '../support/sendcloud-standin.ts';

const LONG_STREET = 'Schiedamse Vest Achterzijde Bedrijfsverzamelgebouw';

describe("the console's shipment pages in a real browser", { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let sc: SendcloudStandIn;
  let base: string;
  let browser: OpenBrowser;
  let page: Page;
  let refused: string;
  let travelled: string;

  before(async () => {
    sc = await new SendcloudStandIn().start();
    ({ t, base } = await servedApp({ env: sc.env, publicBaseUrl: true }));
    const image = await uploadImage(t);
    const shipTo = async (address: Record<string, string>) => {
      const ref = await createOrder(
        t,
        orderBody(t, image, { dropshipAddress: address, dropshipMinimalShippingLevel: 'tracked' }),
      );
      await startProduction(t, ref);
      const res = await call(t, 'POST', '/v2/test-helpers/shipments', {
        body: { shipment: { orderReferences: [ref] } },
      });
      return res.data.shipment.reference as string;
    };
    refused = await shipTo({ ...ADDRESS, streetname: LONG_STREET });
    travelled = await shipTo(ADDRESS);
    await t.s.worker.drain();
    // The second parcel travels and runs into trouble, with a status the mapping table does not know.
    const p = sc.byReference(travelled)!;
    const now = t.clock.now().getTime();
    for (const [i, status] of [
      { id: 3, message: 'En route to sorting center' },
      { id: 4242, message: 'Parcel held for inspection' },
      { id: 8, message: 'Delivery attempt failed' },
    ].entries()) {
      const hook = sc.webhook(p, status, new Date(now + (i + 1) * 60_000));
      await t.app.inject({
        method: 'POST',
        url: '/integrations/sendcloud/webhooks',
        headers: { 'content-type': 'application/json', 'sendcloud-signature': hook.signature },
        payload: hook.raw,
      });
    }

    browser = await openBrowser({ timeout: 30_000 });
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await sc?.stop();
  });

  const shoot = (name: string) => shootPage(page, name, { region: true });

  it('lists what needs attention, shows the carrier refusal, and the operator corrects the address', async () => {
    await signIn(page, base, OPERATOR_USER, 'console');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Shipments', exact: true }).click();
    await page.waitForURL(`${base}/console/shipments`);
    const list = page.getByRole('region', { name: 'Shipments that need attention, oldest first' });
    const text = await list.innerText();
    assert.match(text, new RegExp(`refused[\\s\\S]*Ensure this field has no more than 35 characters`));
    assert.match(text, /exception/);
    await shoot('console-shipments-attention');

    await page.goto(`${base}/console/shipments/${refused}`);
    assert.match(
      await page.getByRole('region', { name: 'The carrier refused the parcel' }).innerText(),
      /\/to_address\/address_line_1: Ensure this field has no more than 35 characters\./,
    );
    const fix = page.getByRole('form', { name: 'Correct the address' });
    assert.equal(await fix.getByLabel('Street').inputValue(), LONG_STREET, 'shown whole, never cut');
    await shoot('console-shipment-refused');
    await fix.getByLabel('Street').fill('Schiedamse Vest');
    await fix.getByLabel('Address line 2').fill('Achterzijde');
    await fix.getByRole('button', { name: 'Correct and announce again' }).click();
    await page.waitForURL(`${base}/console/shipments/${refused}`);
    assert.match(await page.getByRole('status').innerText(), /Address corrected/);
    await t.s.worker.drain();
    await page.reload();
    const facts = await page.getByRole('region', { name: 'Carrier and label' }).innerText();
    assert.match(facts, /PostNL/);
    assert.match(facts, new RegExp(sc.byReference(refused)!.trackingNumber));
    const label = await page.request.get(`${base}/console/shipments/${refused}/label.pdf`);
    assert.equal(label.status(), 200);
    assert.equal((await label.body()).subarray(0, 5).toString(), '%PDF-');
    assert.equal(await page.getByRole('region', { name: 'The carrier refused the parcel' }).count(), 0);
  });

  it('shows a travelled parcel with every tracking event and every status the carrier sent', async () => {
    await page.goto(`${base}/console/shipments/${travelled}`);
    const events = await page.getByRole('region', { name: 'Tracking events, oldest first' }).innerText();
    assert.match(events, /in transit[\s\S]*exception/);
    const said = await page.getByRole('region', { name: 'Carrier statuses as received' }).innerText();
    assert.match(said, /4242[\s\S]*Parcel held for inspection[\s\S]*kept, not a tracking event/);
    assert.match(await page.getByRole('region', { name: 'Carrier and label' }).innerText(), /delivery problem/);
    await shoot('console-shipment-tracking');
  });
});
