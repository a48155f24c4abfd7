import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { createOrder, orderBody, startProduction, uploadImage } from '../orders/helpers.ts';
import { createRender, seeded, uploadSolid } from '../rendering/helpers.ts';
import { type Agent, OPERATOR_USER, OTHER_PARTNER, csrfOf, signedIn, textOf } from './helpers.ts';

describe('partner overview', () => {
  let t: TestApp;
  let a: Agent;
  before(async () => {
    t = await createTestApp();
    a = await signedIn(t);
  });
  after(() => t.close());

  it('shows a new organization a checklist that ticks itself off, and says what to do with no data', async () => {
    const op = await signedIn(t, OPERATOR_USER, 'console');
    const start = await op.get('/console');
    const created = await op.post('/console/organizations', { _csrf: csrfOf(start.body), name: 'Fresh Co' });
    assert.equal(created.statusCode, 303, created.body);
    const orgPath = created.headers.location as string;
    const orgPage = await op.get(orgPath);
    const user = await op.post(`${orgPath}/users`, {
      _csrf: csrfOf(orgPage.body),
      email: 'new@fresh.example',
      password: 'fresh-password-1',
    });
    assert.equal(user.statusCode, 303);
    const fresh = await signedIn(t, { email: 'new@fresh.example', password: 'fresh-password-1' });
    let text = textOf((await fresh.get('/dashboard')).body);
    assert.match(text, /Getting started \(0 of 4 done\)/);
    assert.match(text, /To do: Create an API key/);
    assert.match(text, /No orders in the last 30 days/);
    assert.match(text, /No orders yet/);
    const key = await fresh.submit('/dashboard/api-keys', { name: 'first', access: 'full' }, '/dashboard/api-keys');
    assert.ok(key.statusCode === 200 || key.statusCode === 303, key.body);
    text = textOf((await fresh.get('/dashboard')).body);
    assert.match(text, /Getting started \(1 of 4 done\)/);
    assert.match(text, /Done: Create an API key/);
  });

  it('charts orders per day by status, with spend, production, claims and the latest orders with artwork', async () => {
    const image = await uploadImage(t);
    const order = await createOrder(t, orderBody(t, image));
    await startProduction(t, order);
    const res = await a.get('/dashboard');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<svg viewBox="0 0 600 180" role="img"/);
    assert.match(res.body, /<title>\d{4}-\d{2}-\d{2}: \d+ in production<\/title>/);
    const text = textOf(res.body);
    assert.match(text, /Orders in production [1-9]/);
    assert.match(text, /Spend, last 30 days € [1-9]/);
    assert.match(text, /Rendertokens this week/);
    assert.match(res.body, new RegExp(`/dashboard/images/${image}/thumbnail`));
    const thumb = await a.get(`/dashboard/images/${image}/thumbnail`);
    assert.equal(thumb.statusCode, 200);
    assert.equal(thumb.headers['content-type'], 'image/png');
    const other = await signedIn(t, OTHER_PARTNER);
    assert.equal(
      (await other.get(`/dashboard/images/${image}/thumbnail`)).statusCode,
      404,
      'never another organization',
    );
    assert.doesNotMatch((await other.get('/dashboard')).body, new RegExp(image));
    assert.equal((await a.get('/dashboard/images/Image_nothing/thumbnail')).statusCode, 404);
  });

  it('shows failing webhook endpoints in red with since when', async () => {
    const res = await call(t, 'POST', '/v2/webhook-endpoints', {
      body: { webhookEndpoint: { url: 'http://127.0.0.1:9/hook', eventTypes: ['order.created'] } },
    });
    assert.equal(res.statusCode, 200, res.body);
    const ref = res.data.webhookEndpoint.reference;
    let text = textOf((await a.get('/dashboard')).body);
    assert.doesNotMatch(text, /need attention/);
    assert.match(textOf((await a.get('/dashboard/webhooks')).body), /healthy/);
    await t.s.db.query('UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1', [
      ref,
      new Date('2026-11-20T10:00:00Z'),
    ]);
    const body = (await a.get('/dashboard')).body;
    text = textOf(body);
    assert.match(text, /Webhook endpoints that need attention/);
    assert.match(body, /class="badge bad">failing since/);
    assert.match(body, /class="card tile bad"/);
    const list = (await a.get('/dashboard/webhooks')).body;
    assert.match(list, /class="badge bad">failing since 2026-11-20/, 'no longer a green "enabled"');
    assert.match((await a.get(`/dashboard/webhooks/${ref}`)).body, /failing since 2026-11-20/);
  });

  it('charts this week’s rendertokens day by day against the limit, and says so when none are used', async () => {
    assert.match(textOf((await a.get('/dashboard')).body), /No rendertokens used this week/);
    const res = await createRender(t, seeded(t).cStudioIp15, await uploadSolid(t, { r: 10, g: 120, b: 200 }));
    assert.equal(res.statusCode, 200, res.body);
    const { used, limit } = (await call(t, 'GET', '/v2/rendertokens')).data.rendertokens;
    assert.ok(used > 0);
    const body = (await a.get('/dashboard')).body;
    assert.match(body, /<svg [^>]*aria-labelledby="rtw-t"/);
    assert.match(body, new RegExp(`stroke-dasharray="6 4"/><text [^>]*>limit ${limit}</text>`), 'the limit line');
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Amsterdam' }).format(t.clock.now());
    assert.match(
      body,
      new RegExp(`<tr><th scope="row">${today}</th><td>0</td><td>${used}</td></tr>`),
      'today’s tokens in the table under the chart',
    );
  });
});
