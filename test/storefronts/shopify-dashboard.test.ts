import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signedIn, textOf } from '../dashboard/helpers.ts';
import { products, uploadImage } from '../orders/helpers.ts';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { frontalTemplate } from '../../src/modules/rendering/frontal.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { ShopifyStandIn } from '../support/shopify-standin.ts';
import { connectShop } from './helpers.ts';

describe('Shopify publications on the store page and as product media', () => {
  let t: TestApp;
  let shopify: ShopifyStandIn;
  let storeRef: string;

  before(async () => {
    shopify = await new ShopifyStandIn('dash-secret').start();
    t = await createTestApp({
      env: { SHOPIFY_API_KEY: 'dash-key', SHOPIFY_API_SECRET: 'dash-secret' },
      shopifyFetch: shopify.fetch,
    });
    storeRef = await connectShop(t, shopify);
    await t.s.worker.drain();
  });
  after(async () => {
    await t?.close();
    await shopify?.stop();
  });

  const publish = async (title: string) => {
    const p = products(t);
    const res = await call(t, 'POST', `/v2/stores/${storeRef}/shopify/publications`, {
      body: {
        publication: {
          imageReference: await uploadImage(t),
          productReferences: [p.clear],
          priceCents: 2995,
          title,
        },
      },
    });
    await t.s.worker.drain();
    return res.data.publication.reference as string;
  };
  /** The text of a publication's row in the published products table. */
  const rowOf = (page: string, title: string) => {
    const row = page.split('<tr>').find((r) => r.includes(`"Design">${title}</td>`));
    assert.ok(row, `no row for ${title}`);
    return row;
  };

  it("shows each publication's retries and failure, with a retry for the failed one", async () => {
    await publish('Sunset case');
    shopify.failures.push({ status: 403 });
    await publish('Night sky case');
    shopify.failures.push({ status: 503 });
    await publish('Harbour case');

    const agent = await signedIn(t);
    const page = (await agent.get(`/dashboard/shopify/${storeRef}`)).body;
    assert.match(textOf(rowOf(page, 'Sunset case')), /published/);
    const retrying = textOf(rowOf(page, 'Harbour case'));
    assert.match(retrying, /retrying/);
    assert.match(retrying, /attempt 2 of 8, the last one failed: Shopify answered 503/);
    const failed = rowOf(page, 'Night sky case');
    assert.match(textOf(failed), /failed/);
    assert.match(textOf(failed), /publishing gave up after 1 attempt\(s\): Shopify refused the access token \(403\)/);
    const [op] = await t.s.storefronts.operations(storeRef, 'failed', 1);
    assert.match(failed, new RegExp(`/dashboard/shopify/${storeRef}/operations/${op.id}/retry`));
    assert.match(textOf(failed), /Retry publishing/);

    // The retried publication succeeds and its row says so.
    assert.equal(await t.s.storefronts.retryOperation(storeRef, op.id), true);
    await t.s.worker.drain();
    // The store waits out the 503's pause first (calls to one shop are paused together).
    assert.match(textOf(rowOf((await agent.get(`/dashboard/shopify/${storeRef}`)).body, 'Night sky case')), /waiting/);
    t.clock.advance(31_000);
    await t.s.worker.drain();
    const again = (await agent.get(`/dashboard/shopify/${storeRef}`)).body;
    assert.doesNotMatch(textOf(rowOf(again, 'Night sky case')), /failed|Retry/);
    assert.match(textOf(rowOf(again, 'Night sky case')), /published/);
  });

  it('uploads 3D scene mockups as media where the model has them, its straight-on shot otherwise', async () => {
    const orgId = t.seed.organizations[0].reference;
    const p = products(t);
    // A UV-mapped 3D scene for one model (imported as an operator does); the other has none.
    const group = (await call(t, 'GET', `/v2/products/${p.clear}`)).data.product.productgroupReference;
    const device = loadDevices().find((x) => x.key === 'iphone-17-pro')!;
    const tpl = await frontalTemplate(device, CASE_TYPES.clear, { width: 300, height: 300 });
    const b64 = (b: Buffer) => b.toString('base64');
    const imported = await operator(t, 'POST', '/rendering/import', {
      scenes: [{ key: 'desk-3d', name: 'Desk', description: 'On a desk', compatibleProductgroupReferences: [group] }],
      perspectives: [
        {
          key: 'desk-3d-square',
          name: 'Desk square',
          output: { widthPx: 300, heightPx: 300, format: 'png' },
          sceneKeys: ['desk-3d'],
        },
      ],
      compositions: [
        {
          key: 'desk-3d-clear',
          sceneKey: 'desk-3d',
          productReference: p.clear,
          perspectiveKey: 'desk-3d-square',
          tokenCost: 1,
          template: {
            background: b64(tpl.background),
            uv: b64(tpl.uv),
            layers: b64(tpl.layers),
            material: tpl.material,
            backMm: tpl.backMm,
          },
        },
      ],
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const kindsOf = async (ref: string) => (await t.s.rendering.productMockups(orgId, ref)).map((m) => m.kind);
    assert.deepEqual(await kindsOf(p.clear), ['3d']);
    assert.deepEqual(await kindsOf(p.leather), ['front']);
    const threeD = { reference: p.clear };
    const flat = { reference: p.leather };

    const uploadsBefore = shopify.uploads.size;
    const res = await call(t, 'POST', `/v2/stores/${storeRef}/shopify/publications`, {
      body: {
        publication: {
          imageReference: await uploadImage(t),
          productReferences: [threeD.reference, flat.reference],
          priceCents: 3295,
          title: 'Mountain case',
        },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    await t.s.worker.drain();
    const [row] = await t.db.query<{ media: Array<{ productId: string; kind: string }> }>(
      'SELECT media FROM storefront_products WHERE id = $1',
      [res.data.publication.reference],
    );
    const of = (ref: string) => row.media.filter((m) => m.productId === ref).map((m) => m.kind);
    assert.ok(of(threeD.reference).length >= 1);
    assert.ok(
      of(threeD.reference).every((k) => k === '3d'),
      JSON.stringify(row.media),
    );
    assert.deepEqual(of(flat.reference), ['front']);
    // Every mockup went to Shopify as an image of the product, the variant pointing at its model's first.
    const set = shopify.calls.filter((c) => c.operation === 'ProductSet').at(-1)!.variables.input;
    assert.equal(set.files.length, row.media.length);
    assert.equal(shopify.uploads.size - uploadsBefore, row.media.length);
    assert.ok(set.files.every((f: { contentType: string }) => f.contentType === 'IMAGE'));
    assert.equal(set.variants[0].file.originalSource, set.files[0].originalSource);
    assert.deepEqual(shopify.invalid, []);
  });

  it('publishes again with the variant out of stock when a model ends its life', async () => {
    const p = products(t);
    const res = await call(t, 'POST', `/v2/stores/${storeRef}/shopify/publications`, {
      body: {
        publication: {
          imageReference: await uploadImage(t),
          productReferences: [p.clear, p.leather],
          priceCents: 2995,
          title: 'Lighthouse case',
        },
      },
    });
    await t.s.worker.drain();
    const sets = () => shopify.calls.filter((c) => c.operation === 'ProductSet');
    const before = sets().length;
    const ended = await operator(t, 'PATCH', `/catalog/products/${p.leather}`, { status: 'ended' });
    assert.equal(ended.statusCode, 200, ended.body);
    await t.s.worker.drain();
    await t.s.worker.drain();
    const again = sets().slice(before);
    assert.ok(again.length >= 1, 'published again');
    const mine = again.filter((c) => c.variables.input.title === 'Lighthouse case').at(-1)!;
    assert.ok(mine.variables.identifier?.id, 'the same Shopify product is updated');
    const quantity = (ref: string) =>
      mine.variables.input.variants.find((v: { sku: string }) => v.sku.startsWith(ref)).inventoryQuantities[0].quantity;
    assert.equal(quantity(p.leather), 0);
    assert.equal(quantity(p.clear), 1000);
    const pub = (await call(t, 'GET', `/v2/stores/${storeRef}/shopify/publications`)).data.publications.find(
      (x: { reference: string }) => x.reference === res.data.publication.reference,
    );
    assert.equal(pub.status, 'published');
    assert.deepEqual(shopify.invalid, []);
  });
});
