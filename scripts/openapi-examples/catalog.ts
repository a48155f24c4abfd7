import { type Flow, MISSING } from './recorder.ts';

/** The organization and its catalog: auth, organization, accounts, stores, brands, products and items. */
export async function captureCatalog({ r, productReference }: Flow): Promise<void> {
  await r.send('validateAuth', 'POST', '/v2/auth/validate', {}, 200);
  await r.send('validateAuth', 'POST', '/v2/auth/validate', { key: 'sk_test_wrong' }, 401);
  await r.send('getOrganization', 'GET', '/v2/organization', {}, 200);
  await r.send('getOrganization', 'GET', '/v2/organization', { key: null }, 401);
  for (const [id, path, prefix] of [
    ['Accounts', 'accounts', 'Account'],
    ['Stores', 'stores', 'Store'],
    ['Brands', 'brands', 'Brand'],
  ] as const) {
    const list = await r.send(`list${id}`, 'GET', `/v2/${path}?limit=2`, {}, 200);
    await r.send(`list${id}`, 'GET', `/v2/${path}?limit=0`, {}, 400);
    const first = list.data[path][0].reference;
    await r.send(`get${id.slice(0, -1)}`, 'GET', `/v2/${path}/${first}`, {}, 200);
    await r.send(`get${id.slice(0, -1)}`, 'GET', `/v2/${path}/${MISSING(prefix)}`, {}, 404);
  }
  for (const [id, path] of [
    ['listProducts', 'products'],
    ['listProductgroups', 'productgroups'],
    ['listPackagings', 'packagings'],
    ['listItems', 'items'],
  ] as const) {
    await r.send(id, 'GET', `/v2/${path}?limit=2`, {}, 200);
    await r.send(id, 'GET', `/v2/${path}?cursor=not-a-cursor`, {}, 400);
  }
  await r.send('getProduct', 'GET', `/v2/products/${productReference}`, {}, 200);
  await r.send('getProduct', 'GET', `/v2/products/${MISSING('Product')}`, {}, 404);
  await r.send('getProductMedia', 'GET', `/v2/products/${productReference}/media/${MISSING('missing')}.png`, {}, 404);
  // Before the SKU cutover a product's legacy SKU is its item's warehouse SKU.
  await r.send(
    'lookupProductReferenceByLegacySku',
    'GET',
    '/v2/utilities/lookup-product-reference-by-legacy-sku?legacyItemSku=CASE-IP15-CLR',
    {},
    200,
  );
  await r.send(
    'lookupProductReferenceByLegacySku',
    'GET',
    '/v2/utilities/lookup-product-reference-by-legacy-sku?legacyItemSku=NO-SUCH-SKU',
    {},
    404,
  );
}
