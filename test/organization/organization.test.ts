import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';

describe('organization endpoints', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('returns the organization of the key', async () => {
    const res = await call(t, 'GET', '/v2/organization');
    assert.equal(res.statusCode, 200);
    assert.equal(res.data.organization.reference, t.seed.organizations[0].reference);
    assert.equal(res.data.organization.name, 'Demo Cases Co');
  });

  it('lists accounts with billing fields', async () => {
    const res = await call(t, 'GET', '/v2/accounts');
    assert.equal(res.statusCode, 200);
    assert.equal(res.data.accounts.length, 2);
    assert.equal(res.data.nextCursor, null);
    const a = res.data.accounts.find((x: any) => x.name === 'Demo Cases Benelux');
    assert.equal(a.balance, 125000);
    assert.equal(a.paymentTermDays, 14);
    assert.equal(a.legalEntity.name, 'Demo Cases B.V.');
    assert.equal(a.billingAddress.city, 'Amsterdam');
    assert.match(a.reference, /^Account_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it('lists stores with integration, account, brand, combined address and code', async () => {
    const res = await call(t, 'GET', '/v2/stores');
    assert.equal(res.statusCode, 200);
    assert.equal(res.data.stores.length, 3);
    const shop = res.data.stores.find((x: any) => x.code === 'DEMOSHOP');
    assert.equal(shop.integration, 'shopify');
    assert.match(shop.accountReference, /^Account_/);
    assert.match(shop.defaultBrandReference, /^Brand_/);
    assert.equal(shop.combinedAddress.countryCode, 'NL');
    assert.equal(shop.callbackUrl, null);
  });

  it('shows a store, account and brand by reference', async () => {
    const store = t.seed.organizations[0].stores[0];
    const res = await call(t, 'GET', `/v2/stores/${store.reference}`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.data.store.code, store.code);
    const brand = await call(t, 'GET', `/v2/brands/${t.seed.organizations[0].brands[0].reference}`);
    assert.equal(brand.data.brand.name, 'CaseCraft');
    assert.equal(brand.data.brand.primaryColor, '#0b5fff');
    assert.equal(brand.data.brand.customerService.email, 'help@casecraft.example');
    const account = await call(t, 'GET', `/v2/accounts/${t.seed.organizations[0].accounts[0].reference}`);
    assert.equal(account.data.account.name, 'Demo Cases Benelux');
  });

  it('hides another organization’s records as 404', async () => {
    const foreign = t.seed.organizations[1];
    for (const url of [
      `/v2/stores/${foreign.stores[0].reference}`,
      `/v2/brands/${foreign.brands[0].reference}`,
      `/v2/accounts/${foreign.accounts[0].reference}`,
    ]) {
      const res = await call(t, 'GET', url);
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.data.code, 'not_found');
    }
    const own = await call(t, 'GET', '/v2/stores', { key: t.otherKey });
    assert.deepEqual(
      own.data.stores.map((s: any) => s.code),
      ['OTHER1'],
    );
  });

  it('treats malformed and wrong-typed references as 404', async () => {
    const brandRef = t.seed.organizations[0].brands[0].reference;
    for (const ref of [
      'nope',
      brandRef,
      'Store_' + 'I'.repeat(26),
      'Store_' + 'a'.repeat(27),
      "Store_'; drop table stores;--",
    ]) {
      const res = await call(t, 'GET', `/v2/stores/${encodeURIComponent(ref)}`);
      assert.equal(res.statusCode, 404, ref);
      assert.equal(res.data.code, 'not_found');
    }
  });

  it('paginates with limit and opaque cursors', async () => {
    const first = await call(t, 'GET', '/v2/stores?limit=2');
    assert.equal(first.data.stores.length, 2);
    assert.ok(first.data.nextCursor);
    const second = await call(t, 'GET', `/v2/stores?limit=2&cursor=${encodeURIComponent(first.data.nextCursor)}`);
    assert.equal(second.data.stores.length, 1);
    assert.equal(second.data.nextCursor, null);
    const seen = [...first.data.stores, ...second.data.stores].map((s: any) => s.code).sort();
    assert.deepEqual(seen, ['DEMO1', 'DEMO2', 'DEMOSHOP']);
  });

  it('rejects an edited cursor and a cursor of another list', async () => {
    const first = await call(t, 'GET', '/v2/stores?limit=1');
    const cursor: string = first.data.nextCursor;
    const flipped = cursor.slice(0, 3) + (cursor[3] === 'A' ? 'B' : 'A') + cursor.slice(4);
    const bad = await call(t, 'GET', `/v2/stores?cursor=${encodeURIComponent(flipped)}`);
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.data.code, 'invalid_cursor');
    const accounts = await call(t, 'GET', '/v2/accounts?limit=1');
    const cross = await call(t, 'GET', `/v2/stores?cursor=${encodeURIComponent(accounts.data.nextCursor)}`);
    assert.equal(cross.statusCode, 400);
    assert.equal(cross.data.code, 'invalid_cursor');
    const limit = await call(t, 'GET', '/v2/stores?limit=101');
    assert.equal(limit.statusCode, 400);
    assert.match(limit.data.message, /query\.limit/);
  });
});
