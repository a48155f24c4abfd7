import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { ready } from 'zpl-renderer-js';
import { sendcloudCarrier } from '../../src/modules/carriers/sendcloud/adapter.ts';
import { code128Values } from '../support/pdf-tools.ts';
import { SendcloudStandIn } from '../support/sendcloud-standin.ts';

/**
 * The ZPL a thermal printer gets, drawn as the printer would (zpl-renderer-js, a ZPL renderer that
 * runs offline) and read back: a 4x6 in label at 203 dpi whose barcode scans as the tracking number.
 * With ARTIFACTS_DIR set, the drawn label is kept there as a PNG to look at.
 */
describe('the carrier ZPL label, drawn', () => {
  let sc: SendcloudStandIn;
  before(async () => {
    sc = await new SendcloudStandIn().start();
  });
  after(() => sc.stop());

  it('is a 4x6 in label at 203 dpi with the address, the routing code and a tracking barcode that scans', async () => {
    const carrier = sendcloudCarrier({
      publicKey: sc.publicKey,
      secretKey: sc.secretKey,
      webhookKey: sc.secretKey,
      apiUrl: `${sc.origin}/api/v3`,
    });
    const parcel = await carrier.announce!({
      reference: 'Shipment_01JZPLLABEL00000000000000',
      orderNumber: 'Order_01JZPLLABEL',
      level: 'tracked',
      to: {
        firstname: 'Jane',
        lastname: 'Doe',
        streetname: 'West 44th Street',
        housenumber: '123',
        zipcode: '10036',
        city: 'New York',
        state: 'NY',
        countryCode: 'US',
      },
      from: ['c/o POD Fulfilment', 'Keizersgracht 1', '1015 CC Amsterdam', 'NL'],
      senderName: 'POD Fulfilment',
      items: [
        {
          description: 'Printed phone case (plastic)',
          sku: 'Product_x',
          quantity: 2,
          unitWeightGrams: 38,
          unitPriceCents: 1495,
          hsCode: '392690',
          originCountry: 'NL',
        },
      ],
      weightGrams: 116,
      currency: 'EUR',
      customs: true,
    });
    assert.deepEqual(sc.invalid, []);
    const zpl = parcel.labelZpl?.toString() ?? '';
    assert.match(zpl, /\^PW812\^LL1218/, '812 x 1218 dots: 4 x 6 in at 8 dots/mm');
    const { api } = await ready;
    const png = Buffer.from(await api.zplToBase64Async(zpl, 101.6, 152.4, 8), 'base64');
    const meta = await sharp(png).metadata();
    // The renderer rounds the millimetres up to whole dots: 812 x 1218, give or take two.
    assert.ok(Math.abs(meta.width! - 812) <= 2 && Math.abs(meta.height! - 1218) <= 2, `${meta.width}x${meta.height}`);
    assert.deepEqual(await code128Values(png), [parcel.trackingNumber]);
    assert.ok(parcel.customsPdf?.subarray(0, 5).toString() === '%PDF-', 'the CN23 came with it');
    if (process.env.ARTIFACTS_DIR) {
      mkdirSync(process.env.ARTIFACTS_DIR, { recursive: true });
      writeFileSync(`${process.env.ARTIFACTS_DIR}/carrier-label-zpl.png`, png);
    }
  });
});
