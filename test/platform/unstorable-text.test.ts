import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { ADDRESS, expectError, orderBody, uploadImage } from '../orders/helpers.ts';
import { categories, shippedOrder } from '../claims/helpers.ts';

/**
 * JSON bodies whose escapes decode to text PostgreSQL cannot hold (a NUL, a lone UTF-16
 * surrogate) are refused before any handler runs: a 400 naming the field, and nothing stored.
 * `call` sends bodies through JSON.stringify, which writes both as `\u0000` / `\ud800` escapes.
 */
describe('JSON bodies holding text PostgreSQL cannot store', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const count = async (table: string) =>
    (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;

  /** Sends each body, expects a 400 whose message starts with its field, and no new row in `table`. */
  async function refused(table: string, method: 'POST' | 'PUT', url: string, cases: Array<[unknown, string]>) {
    const before = await count(table);
    for (const [body, field] of cases) {
      const res = await call(t, method, url, { body });
      expectError(res, 400, 'invalid_request');
      assert.ok(res.data.message.startsWith(`${field} `), res.data.message);
      assert.match(res.data.message, /NUL character|well-formed Unicode/);
    }
    assert.equal(await count(table), before, `nothing stored in ${table}`);
  }

  it('orders: an address field, a reference and an annotation', async () => {
    const image = await uploadImage(t);
    const order = (patch: Record<string, unknown>) => orderBody(t, image, patch);
    await refused('orders', 'POST', '/v2/orders', [
      [
        order({ dropshipAddress: { ...ADDRESS, streetname: 'Prinsen\u0000gracht' } }),
        'body.order.dropshipAddress.streetname',
      ],
      [order({ dropshipAddress: { ...ADDRESS, firstname: '\udc00Anna' } }), 'body.order.dropshipAddress.firstname'],
      [order({ customIdentifier: 'ref-\u0000' }), 'body.order.customIdentifier'],
      [
        order({
          orderlines: [
            { ...orderBody(t, image).order.orderlines[0], annotations: [{ key: 'gift\ud800', value: 'x' }] },
          ],
        }),
        'body.order.orderlines[0].annotations[0].key',
      ],
    ]);
  });

  it('claims: the comment of an item-issues claim', async () => {
    const { shipment, order } = await shippedOrder(t, { quantities: [1] });
    const cat = await categories(t);
    const claim = (comment: string) => ({
      claim: {
        shipmentReference: shipment,
        orderReference: order,
        comment,
        claimlines: [{ orderlineIndex: 1, quantity: 1, claimcategoryReference: cat['Wrong item'] }],
      },
    });
    await refused('claims', 'POST', '/v2/claim-item-issues', [
      [claim('Cracked\u0000'), 'body.claim.comment'],
      [claim('Cracked \ud83d'), 'body.claim.comment'],
    ]);
    const ok = await call(t, 'POST', '/v2/claim-item-issues', { body: claim('Cracked 💥') });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it('webhook endpoints: a description, and a property name', async () => {
    const endpoint = (extra: Record<string, unknown>) => ({
      webhookEndpoint: { url: 'https://receiver.example/hooks', eventTypes: ['order.created'], ...extra },
    });
    await refused('webhook_endpoints', 'POST', '/v2/webhook-endpoints', [
      [endpoint({ description: 'ERP\u0000' }), 'body.webhookEndpoint.description'],
      [endpoint({ description: 'ERP \udfff' }), 'body.webhookEndpoint.description'],
      [endpoint({ 'note\ud800': 'x' }), 'body.webhookEndpoint.note\ud800'],
    ]);
  });
});
