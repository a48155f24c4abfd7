import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, createTestApp } from '../support/app.ts';
import { type Agent, OPERATOR_USER, signedIn, textOf } from './helpers.ts';

const ODD = [
  `'"><script>alert(1)</script>`,
  '%_\\',
  'Order_00000000000000000000000000',
  ' ',
  'x'.repeat(5000),
  '日本語 ✓',
  '-1',
  '9'.repeat(30),
  '2026-13-45',
  '\u001e\t\r\n',
];
const PARAMS = [
  'q',
  'status',
  'store',
  'from',
  'to',
  'cursor',
  'offset',
  'before',
  'reference',
  'requestId',
  'path',
  'key',
  'brand',
  'device',
  'caseType',
  'stage',
  'endpoint',
];
const PARTNER_PAGES = [
  '/dashboard',
  '/dashboard/orders',
  '/dashboard/claims',
  '/dashboard/renders',
  '/dashboard/requests',
  '/dashboard/webhooks',
  '/dashboard/webhooks/deliveries',
  '/dashboard/events',
  '/dashboard/usage',
  '/dashboard/stores',
  '/dashboard/brands',
  '/dashboard/api-keys',
  '/dashboard/users',
  '/dashboard/accounts',
];
const CONSOLE_PAGES = ['/console', '/console/catalog', '/console/claims', '/console/jobs', '/console/requests'];
const PARTNER_DETAILS = ['orders', 'claims', 'requests', 'webhooks', 'stores', 'brands'];

describe('dashboard and console with odd input', () => {
  let t: TestApp;
  let partner: Agent;
  let op: Agent;
  before(async () => {
    t = await createTestApp();
    partner = await signedIn(t);
    op = await signedIn(t, OPERATOR_USER, 'console');
  });
  after(() => t.close());

  const query = (value: string) => PARAMS.map((p) => `${p}=${encodeURIComponent(value)}`).join('&');

  it('answers every search and filter with a page (an odd value finds nothing), and escapes what it echoes', async () => {
    for (const [agent, pages] of [
      [partner, PARTNER_PAGES],
      [op, CONSOLE_PAGES],
    ] as const) {
      for (const path of pages) {
        for (const value of ODD) {
          const res = await agent.get(`${path}?${query(value)}`);
          assert.equal(
            res.statusCode,
            200,
            `${path} with ${JSON.stringify(value.slice(0, 20))}: ${res.statusCode} ${res.body.slice(0, 300)}`,
          );
          assert.ok(!res.body.includes('<script>alert(1)'), `${path} echoes markup`);
        }
      }
    }
  });

  it('refuses a NUL in any search with a page that says so, never a 500', async () => {
    for (const [agent, pages] of [
      [partner, PARTNER_PAGES],
      [op, CONSOLE_PAGES],
    ] as const) {
      for (const path of pages) {
        const res = await agent.get(`${path}?${query('a\u0000b')}`);
        assert.equal(res.statusCode, 400, path);
        assert.match(textOf(res.body), /not accepted/, path);
      }
    }
  });

  it('shows the first page of orders for a cursor from an old or edited link', async () => {
    const res = await partner.get('/dashboard/orders?cursor=not-a-cursor');
    assert.equal(res.statusCode, 200);
    assert.match(textOf(res.body), /That page of results is no longer available/);
  });

  it('answers unknown or malformed references on detail pages with 404', async () => {
    for (const kind of PARTNER_DETAILS) {
      for (const value of ODD) {
        const res = await partner.get(`/dashboard/${kind}/${encodeURIComponent(value)}`);
        assert.ok([400, 404].includes(res.statusCode), `${kind}/${value.slice(0, 20)}: ${res.statusCode}`);
      }
    }
    for (const value of ODD) {
      const res = await op.get(`/console/organizations/${encodeURIComponent(value)}`);
      assert.ok([400, 404].includes(res.statusCode), `console organization ${value.slice(0, 20)}: ${res.statusCode}`);
    }
  });
});
