import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';

/** Demo products by name, as `seed --json` lists them for the first organization. */
const product = (t: TestApp, name: string) => {
  const p = t.seed.organizations[0].products!.find((x) => x.name === name);
  assert.ok(p, `demo product ${name}`);
  return p;
};

async function allPages(t: TestApp, path: string, plural: string, key = t.key, limit = 3) {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await call(t, 'GET', `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      key,
    });
    assert.equal(res.statusCode, 200);
    out.push(...res.data[plural]);
    cursor = res.data.nextCursor;
  } while (cursor);
  return out;
}

describe('catalog: products, productgroups, packagings, items', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('seed --json lists the demo products per organization, archived included', () => {
    const [first, second] = t.seed.organizations;
    const statuses = new Set(first.products!.map((p) => p.status));
    assert.deepEqual([...statuses].sort(), ['announced', 'archived', 'ended', 'launched', 'prelaunched', 'sunsetted']);
    assert.ok(first.products!.some((p) => !p.printable));
    assert.ok(first.products!.some((p) => p.name.startsWith('Demo Walnut')));
    assert.ok(
      !second.products!.some((p) => p.name.startsWith('Demo ')),
      'private products are not listed for another organization',
    );
    for (const p of first.products!) assert.match(p.reference, /^Product_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it('lists products newest first, leaves archived ones out and pages with cursors', async () => {
    const all = await allPages(t, '/v2/products', 'products', t.key, 7);
    const visible = t.seed.organizations[0].products!.filter((p) => p.status !== 'archived');
    assert.ok(visible.length > 400, `${visible.length} visible products`);
    assert.deepEqual(all.map((p) => p.reference).sort(), visible.map((p) => p.reference).sort());
    assert.ok(!all.some((p) => p.status === 'archived'));
    const created = all.map((p) => p.reference);
    const big = await allPages(t, '/v2/products', 'products', t.key, 100);
    assert.deepEqual(
      big.map((p: any) => p.reference),
      created,
      'same order whatever the page size',
    );
    const firstPage = await call(t, 'GET', '/v2/products');
    assert.equal(firstPage.data.products.length, 50, 'the default page');
    assert.deepEqual(
      firstPage.data.products.map((p: any) => p.reference),
      created.slice(0, 50),
    );
    const tail = visible.length % 100 || 100;
    let cursor: string | null = null;
    for (let seen = 0; seen + 100 <= visible.length; seen += 100) {
      const page: any = await call(
        t,
        'GET',
        `/v2/products?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      cursor = page.data.nextCursor;
    }
    if (tail === 100) {
      const last = await call(t, 'GET', `/v2/products?limit=100&cursor=${encodeURIComponent(cursor!)}`);
      assert.deepEqual(last.data, { products: [], nextCursor: null }, 'a full last page carries a cursor to nothing');
    } else {
      const last = await call(t, 'GET', `/v2/products?limit=100&cursor=${encodeURIComponent(cursor!)}`);
      assert.equal(last.data.products.length, tail);
      assert.equal(last.data.nextCursor, null);
    }
  });

  it('shows the product fields: legacy SKU, price from the productgroup, stock, print, timestamps', async () => {
    const res = { data: { products: await allPages(t, '/v2/products', 'products', t.key, 100) } };
    const clear = res.data.products.find((p: any) => p.name === 'iPhone 15 Clear Case');
    assert.equal(clear.legacyItemSKU, 'CASE-IP15-CLR');
    assert.equal(clear.status, 'launched');
    assert.equal(clear.availableQuantity, 853);
    assert.equal(clear.printable, true);
    assert.equal(clear.price, 1495);
    assert.match(clear.productgroupReference, /^Productgroup_/);
    assert.equal(clear.layersModified, '2023-05-25T09:00:00.000Z');
    assert.equal(clear.printModified, '2023-05-25T09:00:00.000Z');
    assert.deepEqual(clear.print, {
      modified: '2023-05-25T09:00:00.000Z',
      // A clear case's flat back, inside its 74 x 150 mm outline.
      widthMm: 67.6,
      heightMm: 143.6,
      widthPx: 1597,
      heightPx: 3392,
      dpi: 600,
    });

    const protector = res.data.products.find((p: any) => p.name === 'iPhone 15 Tempered Glass Screen Protector');
    assert.equal(protector.printable, false);
    assert.equal(protector.print, null);
    assert.equal(protector.printModified, null);
    assert.equal(protector.layersModified, null);
    assert.equal(protector.price, 799);

    const announced = res.data.products.find((p: any) => p.name === 'iPhone 18 Clear Case');
    assert.equal(announced.status, 'announced');
    assert.equal(announced.printable, true);
    assert.equal(announced.print, null, 'an announced product may have no print specification yet');
    assert.equal(announced.printModified, null);
    assert.equal(announced.legacyItemSKU, 'CASE-IP18-CLRP001');

    const black = res.data.products.find((p: any) => p.name === 'iPhone 14 Clear Case');
    assert.equal(black.availableQuantity, 0);
    assert.equal(black.status, 'sunsetted');
  });

  it('gives the detail with layers, print and media; an archived product still answers', async () => {
    const clear = product(t, 'iPhone 15 Clear Case');
    const res = await call(t, 'GET', `/v2/products/${clear.reference}`);
    assert.equal(res.statusCode, 200);
    const p = res.data.product;
    assert.equal(p.layers.modified, p.layersModified);
    assert.equal(p.print.modified, p.printModified);
    assert.deepEqual(
      p.layers.images.map((l: any) => l.name),
      ['print-area', 'cutline'],
    );
    for (const l of p.layers.images)
      assert.ok(l.url.endsWith(`/v2/products/${clear.reference}/media/layer-${l.name}.png`), l.url);
    // Its own files first, then the pictures drawn from its geometry and material.
    assert.deepEqual(
      p.media.map((m: any) => [m.kind, m.filename.replace(/-[0-9a-f]{12}\./, '-<hash>.')]),
      [
        ['example_image', 'front.png'],
        ['example_render', 'lifestyle-<hash>.jpg'],
        ['example_image', 'back.webp'],
        ['example_image', 'angle.webp'],
        ['example_image', 'side.webp'],
      ],
    );
    const render = p.media.find((m: any) => m.kind === 'example_render');
    assert.match(render.filename, /^lifestyle-[0-9a-f]{12}\.jpg$/);
    assert.equal(render.contentType, 'image/jpeg');
    assert.ok(render.url.endsWith(`/media/${render.filename}`));

    const archived = product(t, 'iPhone 11 Clear Case');
    const a = await call(t, 'GET', `/v2/products/${archived.reference}`);
    assert.equal(a.statusCode, 200);
    assert.equal(a.data.product.status, 'archived');
    // No print files for what is no longer made; its pictures still show what it was.
    assert.deepEqual(
      a.data.product.media.map((m: any) => m.filename),
      ['back.webp', 'angle.webp', 'side.webp'],
    );
    assert.deepEqual(a.data.product.layers, { modified: null, images: [] });
  });

  it('shows products of a private productgroup only to its organization', async () => {
    const walnut = product(t, 'Demo Walnut Leather Case iPhone 15');
    assert.equal((await call(t, 'GET', `/v2/products/${walnut.reference}`)).statusCode, 200);
    const other = await call(t, 'GET', `/v2/products/${walnut.reference}`, { key: t.otherKey });
    assert.equal(other.statusCode, 404);
    assert.equal(other.data.code, 'not_found');
    const otherList = await allPages(t, '/v2/products', 'products', t.otherKey, 50);
    assert.ok(!otherList.some((p) => p.reference === walnut.reference));
    assert.ok(
      otherList.some((p) => p.name === 'iPhone 15 Clear Case'),
      'public products are visible to everyone',
    );
    const media = await call(t, 'GET', `/v2/products/${walnut.reference}/media/front.png`, { key: t.otherKey });
    assert.equal(media.statusCode, 404);
  });

  it('treats malformed and wrong-typed product references as 404', async () => {
    const store = t.seed.organizations[0].stores[0].reference;
    for (const ref of [
      'nope',
      store,
      `Product_${'I'.repeat(26)}`,
      `Product_${'a'.repeat(27)}`,
      `Product_${'a'.repeat(26)}`,
    ]) {
      const res = await call(t, 'GET', `/v2/products/${encodeURIComponent(ref)}`);
      assert.equal(res.statusCode, 404, ref);
      assert.equal(res.data.code, 'not_found');
    }
  });

  it('two products sharing one item show the same live stock', async () => {
    const res = await call(t, 'GET', '/v2/products?limit=100');
    const leather = res.data.products.filter((p: any) => p.name.startsWith('Demo ') && p.name.includes('Leather'));
    assert.equal(leather.length, 2);
    assert.deepEqual(
      leather.map((p: any) => p.availableQuantity),
      [40, 40],
    );
    assert.deepEqual(leather.map((p: any) => p.legacyItemSKU).sort(), ['DEMO-IP15-LTHP001', 'DEMO-IP15-LTHP002']);
    assert.deepEqual(
      leather.map((p: any) => p.price),
      [2495, 2495],
    );
  });

  it('lists productgroups and packagings, private ones only for their organization', async () => {
    const mine = await call(t, 'GET', '/v2/productgroups');
    assert.equal(mine.statusCode, 200);
    assert.equal(mine.data.nextCursor, null);
    const priv = mine.data.productgroups.find((g: any) => g.private);
    assert.equal(priv.name, 'Demo Cases leather collection');
    assert.equal(priv.price, 2495);
    assert.equal(mine.data.productgroups.length, 9);
    const theirs = await call(t, 'GET', '/v2/productgroups', { key: t.otherKey });
    assert.equal(theirs.data.productgroups.length, 9);
    assert.deepEqual(
      theirs.data.productgroups.filter((g: any) => g.private).map((g: any) => g.name),
      ['Other Prints slim cases'],
    );
    assert.ok(!mine.data.productgroups.some((g: any) => g.name === 'Other Prints slim cases'));

    const packs = await call(t, 'GET', '/v2/packagings');
    assert.deepEqual(packs.data.packagings.map((p: any) => p.name).sort(), [
      'Demo Cases branded box',
      'Gift box',
      'Standard sleeve',
    ]);
    assert.match(packs.data.packagings[0].reference, /^Packaging_/);
    const otherPacks = await call(t, 'GET', '/v2/packagings', { key: t.otherKey });
    assert.deepEqual(otherPacks.data.packagings.map((p: any) => p.name).sort(), ['Gift box', 'Standard sleeve']);
    const paged = await allPages(t, '/v2/productgroups', 'productgroups', t.key, 2);
    assert.equal(paged.length, 9);
    const prices = Object.fromEntries(mine.data.productgroups.map((g: any) => [g.name, g.price]));
    assert.equal(
      new Set(
        ['Clear cases', 'Tough matte cases', 'MagSafe-compatible cases', 'Leather cases', 'Wallet book cases'].map(
          (n) => prices[n],
        ),
      ).size,
      5,
      'each case type has its own price',
    );
  });

  it('lists only the stock the organization stores, with its linked products', async () => {
    const res = await call(t, 'GET', '/v2/items');
    assert.equal(res.statusCode, 200);
    assert.equal(res.data.items.length, 1);
    const item = res.data.items[0];
    assert.match(item.reference, /^Item_/);
    assert.equal(item.sku, 'DEMO-IP15-LTH');
    assert.equal(item.logicalQuantity, 40);
    assert.equal(item.physicalQuantity, 42);
    const expected = ['Demo Walnut Leather Case iPhone 15', 'Demo Sand Leather Case iPhone 15'].map(
      (n) => product(t, n).reference,
    );
    assert.deepEqual(item.products.map((p: any) => p.reference).sort(), expected.sort());

    const other = await call(t, 'GET', '/v2/items', { key: t.otherKey });
    assert.deepEqual(
      other.data.items.map((i: any) => i.sku),
      ['OTHER-S24-SLM'],
    );
    assert.equal(other.data.items[0].products.length, 1);
    assert.equal((await call(t, 'GET', '/v2/items?cursor=forged')).statusCode, 400);
  });

  it('looks products up by legacy SKU of both eras, only when visible', async () => {
    const url = (sku: string) =>
      `/v2/utilities/lookup-product-reference-by-legacy-sku?legacyItemSku=${encodeURIComponent(sku)}`;
    const before = await call(t, 'GET', url('CASE-IP15-CLR'));
    assert.equal(before.statusCode, 200);
    assert.deepEqual(before.data, { productReference: product(t, 'iPhone 15 Clear Case').reference });
    const afterCutover = await call(t, 'GET', url('DEMO-IP15-LTHP002'));
    assert.deepEqual(afterCutover.data, { productReference: product(t, 'Demo Sand Leather Case iPhone 15').reference });
    assert.equal((await call(t, 'GET', url('CASE-IP11-CLR'))).statusCode, 200, 'archived products still resolve');

    const hidden = await call(t, 'GET', url('DEMO-IP15-LTHP002'), { key: t.otherKey });
    assert.equal(hidden.statusCode, 404);
    const unknown = await call(t, 'GET', url('NOPE-123'));
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.data.code, 'not_found');
    assert.equal(
      (await call(t, 'GET', url('DEMO-IP15-LTH'))).statusCode,
      404,
      'the bare warehouse SKU of a shared item is no product SKU',
    );
    const missing = await call(t, 'GET', '/v2/utilities/lookup-product-reference-by-legacy-sku');
    assert.equal(missing.statusCode, 400);
    assert.match(missing.data.message, /legacyItemSku/);
    const extra = await call(t, 'GET', `${url('CASE-IP15-CLR')}&foo=1`);
    assert.equal(extra.statusCode, 400);
  });

  it('works with a read-only key and refuses a missing key', async () => {
    assert.equal((await call(t, 'GET', '/v2/products', { key: t.readOnlyKey })).statusCode, 200);
    const res = await call(t, 'GET', '/v2/products', { key: null });
    assert.equal(res.statusCode, 401);
    assert.equal((await call(t, 'GET', '/v2/products?limit=0')).statusCode, 400);
  });

  it('answers other modules: orderable products, visible product and productgroup', async () => {
    const [first, second] = t.seed.organizations;
    const walnut = product(t, 'Demo Walnut Leather Case iPhone 15');
    const clear = product(t, 'iPhone 15 Clear Case');
    const refs = [walnut.reference, clear.reference, 'Product_nope', t.seed.organizations[0].stores[0].reference];
    const mine = await t.s.catalog.orderableProducts(first.reference, refs);
    assert.deepEqual([...mine.keys()].sort(), [walnut.reference, clear.reference].sort());
    assert.deepEqual(mine.get(clear.reference), {
      reference: clear.reference,
      name: 'iPhone 15 Clear Case',
      status: 'launched',
      printable: true,
      priceCents: 1495,
      weightGrams: 32,
      sku: 'CASE-IP15-CLR',
      productgroupReference: mine.get(clear.reference)!.productgroupReference,
    });
    const theirs = await t.s.catalog.orderableProducts(second.reference, refs);
    assert.deepEqual([...theirs.keys()], [clear.reference]);

    assert.equal((await t.s.catalog.visibleProduct(first.reference, walnut.reference)).priceCents, 2495);
    await assert.rejects(t.s.catalog.visibleProduct(second.reference, walnut.reference), (e: any) => e.status === 404);
    const group = mine.get(walnut.reference)!.productgroupReference;
    assert.equal((await t.s.catalog.visibleProductgroup(first.reference, group)).priceCents, 2495);
    await assert.rejects(t.s.catalog.visibleProductgroup(second.reference, group), (e: any) => e.status === 404);
    await assert.rejects(t.s.catalog.visibleProductgroup(first.reference, 'garbage'), (e: any) => e.status === 404);

    const packs = (await call(t, 'GET', '/v2/packagings')).data.packagings;
    const branded = packs.find((p: any) => p.private);
    assert.deepEqual(await t.s.catalog.visiblePackaging(first.reference, branded.reference), branded);
    await assert.rejects(
      t.s.catalog.visiblePackaging(second.reference, branded.reference),
      (e: any) => e.status === 404,
    );
    assert.equal(await t.s.catalog.packagingForOrganization(second.reference, branded.reference), null);
    assert.equal(
      (await t.s.catalog.packagingForOrganization(first.reference, branded.reference))?.reference,
      branded.reference,
    );
  });
});
