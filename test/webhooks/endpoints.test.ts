import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { isPrivateAddress } from '../../src/platform/http/targets.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { clearEndpoints, createEndpoint, deliveriesOf, recordEvent } from './helpers.ts';

const DAY = 24 * 3600_000;
const RECEIVER = 'https://hooks.partner.example/pod?x=1';

describe('webhook endpoints, delivery log and events API', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('creates an endpoint and shows its secret only on creation', async () => {
    const res = await call(t, 'POST', '/v2/webhook-endpoints', {
      body: {
        webhookEndpoint: {
          url: RECEIVER,
          eventTypes: ['order.created', 'order.shipped', 'order.created'],
          description: 'ERP',
        },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const ep = res.data.webhookEndpoint;
    assert.match(ep.reference, /^Webhookendpoint_[0-9a-hjkmnp-tv-z]{26}$/);
    assert.match(ep.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(ep.secret.slice(6), 'base64').length, 24);
    assert.deepEqual(ep.eventTypes, ['order.created', 'order.shipped']);
    assert.equal(ep.url, RECEIVER);
    assert.equal(ep.description, 'ERP');
    assert.equal(ep.enabled, true);
    assert.equal(ep.disabledReason, null);
    assert.equal(ep.previousSecretExpires, null);

    const got = await call(t, 'GET', `/v2/webhook-endpoints/${ep.reference}`);
    assert.equal(got.statusCode, 200);
    assert.equal(got.data.webhookEndpoint.secret, undefined);
    const list = await call(t, 'GET', '/v2/webhook-endpoints');
    assert.ok(list.data.webhookEndpoints.some((e: any) => e.reference === ep.reference && e.secret === undefined));
    // Stored sealed: the plain secret is nowhere in the row.
    const rows = await t.db.query('SELECT * FROM webhook_endpoints WHERE id = $1', [ep.reference]);
    assert.ok(!JSON.stringify(rows[0]).includes(ep.secret.slice(6)));
  });

  it('paginates endpoints newest first', async () => {
    await clearEndpoints(t);
    const a = await createEndpoint(t, RECEIVER);
    const b = await createEndpoint(t, RECEIVER);
    const p1 = await call(t, 'GET', '/v2/webhook-endpoints?limit=1');
    assert.deepEqual(
      p1.data.webhookEndpoints.map((e: any) => e.reference),
      [b.reference],
    );
    assert.ok(p1.data.nextCursor);
    const p2 = await call(t, 'GET', `/v2/webhook-endpoints?limit=1&cursor=${encodeURIComponent(p1.data.nextCursor)}`);
    assert.deepEqual(
      p2.data.webhookEndpoints.map((e: any) => e.reference),
      [a.reference],
    );
    const bad = await call(t, 'GET', '/v2/webhook-endpoints?cursor=nonsense');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.data.code, 'invalid_cursor');
  });

  it('rejects bad bodies with a message naming the field', async () => {
    const post = (body: unknown) => call(t, 'POST', '/v2/webhook-endpoints', { body });
    const cases: Array<[unknown, RegExp]> = [
      [
        { webhookEndpoint: { url: RECEIVER, eventTypes: ['order.exploded'] } },
        /body\.webhookEndpoint\.eventTypes\[0\]/,
      ],
      [{ webhookEndpoint: { url: RECEIVER, eventTypes: ['ping'] } }, /body\.webhookEndpoint\.eventTypes\[0\]/],
      [{ webhookEndpoint: { url: RECEIVER, eventTypes: [] } }, /body\.webhookEndpoint\.eventTypes/],
      [
        { webhookEndpoint: { url: RECEIVER, eventTypes: ['order.created'], secret: 'whsec_x' } },
        /body\.webhookEndpoint\.secret/,
      ],
      [{ webhookEndpoint: { eventTypes: ['order.created'] } }, /body\.webhookEndpoint\.url/],
      [
        { webhookEndpoint: { url: 'ftp://files.example/x', eventTypes: ['order.created'] } },
        /body\.webhookEndpoint\.url must be an http or https URL/,
      ],
      [
        { webhookEndpoint: { url: 'not a url', eventTypes: ['order.created'] } },
        /body\.webhookEndpoint\.url is not a valid URL/,
      ],
      [{ webhookEndpoint: { url: 'https://user:pw@x.example/', eventTypes: ['order.created'] } }, /credentials/],
      [{ webhookEndpoint: { url: RECEIVER, eventTypes: 'order.created' } }, /body\.webhookEndpoint\.eventTypes/],
      [{ url: RECEIVER, eventTypes: ['order.created'] }, /body\.(webhookEndpoint|url)/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.data.code, 'invalid_request');
      assert.match(res.data.message, message, JSON.stringify(body));
    }
    const text = await call(t, 'POST', '/v2/webhook-endpoints', {
      payload: 'url=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(text.statusCode, 415);
  });

  it('updates url, event types, description and enabled', async () => {
    const ep = await createEndpoint(t, RECEIVER);
    const url = `/v2/webhook-endpoints/${ep.reference}`;
    const res = await call(t, 'PATCH', url, {
      body: {
        webhookEndpoint: {
          url: 'https://other.example/hook',
          eventTypes: ['claim.created', 'render.failed'],
          description: 'claims',
          enabled: false,
        },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const e = res.data.webhookEndpoint;
    assert.equal(e.url, 'https://other.example/hook');
    assert.deepEqual(e.eventTypes, ['claim.created', 'render.failed']);
    assert.equal(e.description, 'claims');
    assert.equal(e.enabled, false);
    assert.equal(e.secret, undefined);
    const cleared = await call(t, 'PATCH', url, { body: { webhookEndpoint: { description: null } } });
    assert.equal(cleared.data.webhookEndpoint.description, null);
    assert.equal(cleared.data.webhookEndpoint.url, 'https://other.example/hook');

    for (const [body, message] of [
      [{ webhookEndpoint: {} }, /body\.webhookEndpoint/],
      [{ webhookEndpoint: { enabled: 'yes' } }, /body\.webhookEndpoint\.enabled/],
      [{ webhookEndpoint: { eventTypes: ['order.nope'] } }, /body\.webhookEndpoint\.eventTypes\[0\]/],
      [{ webhookEndpoint: { url: 'gopher://x' } }, /body\.webhookEndpoint\.url/],
      [{ webhookEndpoint: { secret: 'x' } }, /body\.webhookEndpoint\.secret/],
    ] as Array<[unknown, RegExp]>) {
      const bad = await call(t, 'PATCH', url, { body });
      assert.equal(bad.statusCode, 400, JSON.stringify(body));
      assert.match(bad.data.message, message);
    }
  });

  it('deletes an endpoint', async () => {
    const ep = await createEndpoint(t, RECEIVER);
    const del = await call(t, 'DELETE', `/v2/webhook-endpoints/${ep.reference}`);
    assert.equal(del.statusCode, 204);
    assert.equal(del.body, '');
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/rotate-secret'],
      ['POST', '/test'],
    ] as const) {
      const res = await call(
        t,
        method,
        `/v2/webhook-endpoints/${ep.reference}${path}`,
        method === 'PATCH' ? { body: { webhookEndpoint: { enabled: true } } } : {},
      );
      assert.equal(res.statusCode, 404, `${method} ${path}`);
    }
    const list = await call(t, 'GET', '/v2/webhook-endpoints?limit=100');
    assert.ok(!list.data.webhookEndpoints.some((e: any) => e.reference === ep.reference));
  });

  it('answers 404 for malformed and unknown references', async () => {
    for (const path of [
      '/v2/webhook-endpoints/nope',
      '/v2/webhook-endpoints/Webhookendpoint_0123456789abcdefghjkmnpqrs',
      '/v2/webhook-deliveries/Order_0123456789abcdefghjkmnpqrs',
      '/v2/webhook-deliveries/Delivery_0123456789abcdefghjkmnpqrs',
      '/v2/events/Event_0123456789abcdefghjkmnpqrs',
      '/v2/events/%00',
    ]) {
      const res = await call(t, 'GET', path);
      assert.equal(res.statusCode, 404, path);
      assert.equal(res.data.code, 'not_found');
    }
    const resend = await call(t, 'POST', '/v2/webhook-deliveries/Delivery_x/resend');
    assert.equal(resend.statusCode, 404);
  });

  it('hides endpoints, deliveries and events of another organization (404)', async () => {
    const ep = await createEndpoint(t, RECEIVER);
    const event = await recordEvent(t);
    const [delivery] = await deliveriesOf(t, `eventReference=${event.reference}`);
    assert.ok(delivery);
    const other = { key: t.otherKey };
    const attempts: Array<[any, string, unknown?]> = [
      ['GET', `/v2/webhook-endpoints/${ep.reference}`],
      ['PATCH', `/v2/webhook-endpoints/${ep.reference}`, { webhookEndpoint: { enabled: false } }],
      ['DELETE', `/v2/webhook-endpoints/${ep.reference}`],
      ['POST', `/v2/webhook-endpoints/${ep.reference}/rotate-secret`],
      ['POST', `/v2/webhook-endpoints/${ep.reference}/test`],
      ['GET', `/v2/webhook-deliveries/${delivery.reference}`],
      ['POST', `/v2/webhook-deliveries/${delivery.reference}/resend`],
      ['GET', `/v2/events/${event.reference}`],
    ];
    for (const [method, url, body] of attempts) {
      const res = await call(t, method, url, { ...other, body });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
    }
    const lists = await Promise.all([
      call(t, 'GET', '/v2/webhook-endpoints', other),
      call(t, 'GET', `/v2/webhook-deliveries?eventReference=${event.reference}`, other),
      call(t, 'GET', '/v2/events', other),
    ]);
    assert.deepEqual(lists[0].data.webhookEndpoints, []);
    assert.deepEqual(lists[1].data.webhookDeliveries, []);
    assert.deepEqual(lists[2].data.events, []);
    // The other organization's events reach only its own endpoints.
    await recordEvent(t, 'order.created', { order: {} }, t.seed.organizations[1].reference);
    assert.equal((await deliveriesOf(t, `endpointReference=${ep.reference}`)).length, 1);
    assert.equal((await call(t, 'GET', `/v2/webhook-endpoints/${ep.reference}`)).data.webhookEndpoint.enabled, true);
  });

  it('refuses writes with a read-only key (403) but lets it read', async () => {
    const ep = await createEndpoint(t, RECEIVER);
    const event = await recordEvent(t);
    const [delivery] = await deliveriesOf(t, `eventReference=${event.reference}`);
    const ro = { key: t.readOnlyKey };
    for (const [method, url, body] of [
      ['POST', '/v2/webhook-endpoints', { webhookEndpoint: { url: RECEIVER, eventTypes: ['order.created'] } }],
      ['PATCH', `/v2/webhook-endpoints/${ep.reference}`, { webhookEndpoint: { enabled: false } }],
      ['DELETE', `/v2/webhook-endpoints/${ep.reference}`],
      ['POST', `/v2/webhook-endpoints/${ep.reference}/rotate-secret`],
      ['POST', `/v2/webhook-endpoints/${ep.reference}/test`],
      ['POST', `/v2/webhook-deliveries/${delivery.reference}/resend`],
    ] as Array<[any, string, unknown?]>) {
      const res = await call(t, method, url, { ...ro, body });
      assert.equal(res.statusCode, 403, `${method} ${url}`);
      assert.equal(res.data.code, 'insufficient_permissions');
    }
    for (const url of [
      `/v2/webhook-endpoints/${ep.reference}`,
      '/v2/webhook-deliveries',
      `/v2/events/${event.reference}`,
    ]) {
      assert.equal((await call(t, 'GET', url, ro)).statusCode, 200, url);
    }
  });

  it('rotates the secret', async () => {
    const ep = await createEndpoint(t, RECEIVER);
    const res = await call(t, 'POST', `/v2/webhook-endpoints/${ep.reference}/rotate-secret`);
    assert.equal(res.statusCode, 200);
    assert.notEqual(res.data.webhookEndpoint.secret, ep.secret);
    assert.equal(res.data.webhookEndpoint.previousSecretExpires, new Date(t.clock.now().getTime() + DAY).toISOString());
  });

  it('filters the delivery log by endpoint, event and status', async () => {
    await clearEndpoints(t);
    const a = await createEndpoint(t, RECEIVER, ['order.created']);
    const b = await createEndpoint(t, RECEIVER, ['order.created', 'claim.created']);
    const e1 = await recordEvent(t, 'order.created');
    const e2 = await recordEvent(t, 'claim.created', { claim: { reference: 'Claim_0123456789abcdefghjkmnpqrs' } });
    assert.equal((await deliveriesOf(t, `eventReference=${e1.reference}`)).length, 2);
    assert.equal((await deliveriesOf(t, `endpointReference=${b.reference}`)).length, 2);
    assert.equal((await deliveriesOf(t, `endpointReference=${a.reference}&eventReference=${e2.reference}`)).length, 0);
    const pending = await deliveriesOf(t, `endpointReference=${b.reference}&status=pending`);
    assert.deepEqual(
      pending.map((d) => d.eventType),
      ['claim.created', 'order.created'],
    );
    assert.equal(pending[0].nextAttempt, t.clock.now().toISOString());
    assert.deepEqual(pending[0].attempts, []);
    assert.equal((await deliveriesOf(t, `endpointReference=${b.reference}&status=succeeded`)).length, 0);
    const page = await call(t, 'GET', `/v2/webhook-deliveries?endpointReference=${b.reference}&limit=1`);
    assert.equal(page.data.webhookDeliveries.length, 1);
    assert.ok(page.data.nextCursor);
    for (const q of ['status=done', 'limit=0', 'limit=101', 'foo=1']) {
      const bad = await call(t, 'GET', `/v2/webhook-deliveries?${q}`);
      assert.equal(bad.statusCode, 400, q);
    }
    await clearEndpoints(t);
  });

  it('documents every webhook operation in the OpenAPI document', async () => {
    const res = await call(t, 'GET', '/v2/openapi.json', { key: null });
    assert.equal(res.statusCode, 200);
    const ops = Object.values(res.data.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) =>
      Object.values(p).map((o) => o.operationId),
    );
    for (const id of [
      'createWebhookEndpoint',
      'listWebhookEndpoints',
      'getWebhookEndpoint',
      'updateWebhookEndpoint',
      'deleteWebhookEndpoint',
      'rotateWebhookEndpointSecret',
      'testWebhookEndpoint',
      'listWebhookDeliveries',
      'getWebhookDelivery',
      'resendWebhookDelivery',
      'listEvents',
      'getEvent',
    ]) {
      assert.ok(ops.includes(id), id);
    }
  });

  it('limits the number of endpoints per organization', async () => {
    await clearEndpoints(t);
    for (let i = 0; i < 50; i++) await createEndpoint(t, RECEIVER);
    const res = await call(t, 'POST', '/v2/webhook-endpoints', {
      body: { webhookEndpoint: { url: RECEIVER, eventTypes: ['order.created'] } },
    });
    assert.equal(res.statusCode, 409);
    assert.equal(res.data.code, 'webhook_endpoint_limit_reached');
    await clearEndpoints(t);
  });
});

describe('webhook targets in production', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ALLOW_PRIVATE_TARGETS: 'false' } });
  });
  after(() => t.close());

  it('refuses loopback, private and link-local URLs', async () => {
    for (const url of [
      'http://127.0.0.1:8080/x',
      'http://localhost/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
      'http://192.168.1.1/x',
    ]) {
      const res = await call(t, 'POST', '/v2/webhook-endpoints', {
        body: { webhookEndpoint: { url, eventTypes: ['order.created'] } },
      });
      assert.equal(res.statusCode, 400, url);
      assert.match(
        res.data.message,
        /body\.webhookEndpoint\.url must not point at a loopback, private or link-local address/,
      );
    }
    const ep = await createEndpoint(t, RECEIVER);
    const patch = await call(t, 'PATCH', `/v2/webhook-endpoints/${ep.reference}`, {
      body: { webhookEndpoint: { url: 'http://127.0.0.1/x' } },
    });
    assert.equal(patch.statusCode, 400);
  });

  it('checks the resolved address at connection time', async (c) => {
    // The machine's own name passes the URL check but resolves to a loopback or private address.
    const host = hostname();
    const resolved = await lookup(host).catch(() => null);
    if (!resolved || !isPrivateAddress(resolved.address))
      return c.skip(`${host} does not resolve to a private address here`);
    const ep = await createEndpoint(t, `http://${host}:9/hook`);
    const res = await call(t, 'POST', `/v2/webhook-endpoints/${ep.reference}/test`);
    assert.equal(res.statusCode, 200);
    const attempt = res.data.webhookDelivery.attempts[0];
    assert.equal(attempt.responseStatus, null);
    assert.match(attempt.error, /resolves to a private address/);
  });
});
