import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, call, servedApp } from '../support/app.ts';
import { type OpenBrowser, openBrowser, skipWithoutChromium } from '../support/browser.ts';
import { ADDRESS, createOrder, orderBody, ship, startProduction, uploadImage } from '../orders/helpers.ts';

describe('tracking page in a real browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let browser: OpenBrowser;
  let origin = '';
  let logoServer: http.Server;
  let logoUrl = '';

  before(async () => {
    const logo = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#ff8800' } })
      .png()
      .toBuffer();
    logoServer = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(logo));
    await new Promise<void>((r) => logoServer.listen(0, '127.0.0.1', r));
    logoUrl = `http://127.0.0.1:${(logoServer.address() as AddressInfo).port}/logo.png`;
    ({ t, base: origin } = await servedApp());
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    logoServer?.closeAllConnections();
    await new Promise<void>((r) => (logoServer ? logoServer.close(() => r()) : r()));
    await t?.close();
  });

  it('shows the brand, carrier, tracking number, ship date and destination only', async () => {
    const orgId = t.seed.organizations[0].reference;
    const brand = await t.s.organization.createBrand(orgId, {
      name: 'Case <Club> & Co',
      logoUrl,
      primaryColor: '#0b5fff',
      secondaryColor: '#e8f0ff',
      customerService: {
        email: 'help@caseclub.example',
        phonenumber: '+31 20 000 0000',
        url: 'https://caseclub.example/help',
      },
    });
    const image = await uploadImage(t);
    const ref = await createOrder(
      t,
      orderBody(t, image, {
        brandReference: brand.reference,
        dropshipMinimalShippingLevel: 'express',
        dropshipAddress: { ...ADDRESS, city: 'Utrecht' },
      }),
    );
    await startProduction(t, ref);
    const shippedAt = '2026-01-15T10:00:00.000Z';
    t.clock.set('2026-01-16T10:00:00Z');
    const shipment = (await call(t, 'GET', `/v2/shipments/${await ship(t, [ref], { shippedAt })}`)).data.shipment;

    const page = await browser.context.newPage();
    try {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const res = await page.goto(`${origin}${new URL(shipment.trackingUrl).pathname}`);
      assert.equal(res?.status(), 200);
      assert.equal(await page.textContent('#brand-name'), 'Case <Club> & Co');
      assert.equal(await page.textContent('#carrier'), 'DHL Express');
      assert.equal(await page.textContent('#tracking-number'), shipment.trackingNumber);
      assert.equal(await page.textContent('#ship-date'), '2026-01-15');
      assert.equal(await page.textContent('#destination'), 'Utrecht, Netherlands');
      const headerColor = await page.$eval('header', (el) => getComputedStyle(el).backgroundColor);
      assert.equal(headerColor, 'rgb(11, 95, 255)');
      const bodyColor = await page.$eval('body', (el) => getComputedStyle(el).backgroundColor);
      assert.equal(bodyColor, 'rgb(232, 240, 255)');
      await page.waitForFunction(
        () => (document.querySelector('header img') as HTMLImageElement | null)?.complete === true,
      );
      assert.equal(
        await page.$eval('header img', (el) => (el as HTMLImageElement).naturalWidth),
        40,
        'the brand logo loads',
      );
      const contact = await page.textContent('#customer-service');
      assert.ok(contact?.includes('help@caseclub.example') && contact.includes('+31 20 000 0000'));
      const text = (await page.textContent('body')) ?? '';
      for (const personal of ['Anna', 'Jansen', 'Prinsengracht', 'anna@example.com', '1016 GV'])
        assert.ok(!text.includes(personal), `${personal} is not shown`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  it('answers an unknown token with a 404 page', async () => {
    const page = await browser.context.newPage();
    try {
      const res = await page.goto(`${origin}/tracking/0123456789abcdefghjkmnpqrstvwxyz`);
      assert.equal(res?.status(), 404);
      assert.match((await page.textContent('body')) ?? '', /does not exist/);
    } finally {
      await page.close();
    }
  });
});
