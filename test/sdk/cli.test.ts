import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { listen, localSecret } from '../../packages/sdk/src/cli/listen.ts';
import { ALL, commandHelp } from '../../packages/sdk/src/cli/main.ts';
import { CliFailure } from '../../packages/sdk/src/cli/output.ts';
import { type SdkServer, startSdkServer } from './helpers.ts';
import { entryArgs } from '../support/entry.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A partner's local app: records what reaches it and answers 204. */
async function receiver(): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks`, got, close: () => new Promise((r) => srv.close(() => r())) };
}

/** podpartner as users run it (the package's bin, dist/esm/cli/main.js), from source when the build is stale. */
const PODPARTNER = entryArgs('packages/sdk/dist/esm/cli/main.js', 'packages/sdk/src/cli/main.ts');

/**
 * Runs the CLI as its own process, as a user's shell would; not waiting synchronously, since the
 * server it calls runs in this process.
 */
async function cli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [...PODPARTNER, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const [code] = (await once(child, 'close')) as [number];
  return { code, stdout, stderr };
}

describe('podpartner', () => {
  let server: SdkServer;
  let env: Record<string, string>;
  before(async () => {
    server = await startSdkServer();
    env = { POD_API_KEY: server.t.key, POD_BASE_URL: server.baseUrl };
  });
  after(() => server?.close());

  it('listen forwards new events signed exactly like real deliveries, with the local secret', async () => {
    const app = await receiver();
    const secret = `whsec_${Buffer.from('a local secret of 32 bytes......').toString('base64')}`;
    const lines: string[] = [];
    const stop = new AbortController();
    // An event from before `listen` started is not forwarded.
    await server.client.testHelpers.triggerEvent({ event: { type: 'order.created' } });
    const running = listen(server.client, {
      forwardTo: app.url,
      secret,
      events: ['order.shipped', 'shipment.created'],
      pollIntervalMs: 100,
      maxEvents: 2,
      signal: stop.signal,
      log: (l) => lines.push(l),
    });
    while (!lines.some((l) => l.startsWith('Ready'))) await new Promise((r) => setTimeout(r, 20));
    const { trigger } = await server.client.testHelpers.triggerEvent({ event: { type: 'order.shipped' } });
    const { forwarded } = await running;
    await app.close();

    assert.equal(forwarded, 2);
    assert.ok(
      lines.some((l) => l.includes(secret)),
      'the secret is printed',
    );
    assert.deepEqual(app.got.map((g) => JSON.parse(g.body).type).sort(), ['order.shipped', 'shipment.created']);
    const events = await server.client.events.list({ limit: 20 }).toArray(20);
    for (const g of app.got) {
      // The standard library's verifier accepts them, as it accepts the service's own deliveries.
      const verified = new Webhook(secret).verify(g.body, g.headers as Record<string, string>) as { data: any };
      assert.equal(g.headers['content-type'], 'application/json');
      const event = events.find((e) => e.reference === g.headers['webhook-id'])!;
      assert.ok(event, 'webhook-id is the event reference');
      assert.equal(g.body, JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data }));
      const ref = verified.data.order?.reference ?? verified.data.shipment?.orders?.[0]?.reference;
      assert.ok(ref === trigger.objects.order || verified.data.shipment?.reference === trigger.objects.shipment);
    }
  });

  it('listen shows a redirect and does not follow it with the signed body', async () => {
    const app = await receiver();
    const redirecting = http.createServer((_req, res) => res.writeHead(307, { location: app.url }).end());
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    const { port } = redirecting.address() as AddressInfo;
    const lines: string[] = [];
    const running = listen(server.client, {
      forwardTo: `http://127.0.0.1:${port}/old-hook`,
      secret: 'whsec_c2VjcmV0',
      events: ['order.created'],
      pollIntervalMs: 100,
      maxEvents: 1,
      log: (l) => lines.push(l),
    });
    while (!lines.some((l) => l.startsWith('Ready'))) await new Promise((r) => setTimeout(r, 20));
    await server.client.testHelpers.triggerEvent({ event: { type: 'order.created' } });
    await running;
    await new Promise<void>((r) => redirecting.close(() => r()));
    await app.close();
    assert.equal(app.got.length, 0, 'nothing reached the address the redirect named');
    assert.ok(
      lines.some((l) =>
        l.includes(`<-- [307] POST http://127.0.0.1:${port}/old-hook redirects to ${app.url} (not followed`),
      ),
      lines.join('\n'),
    );
  });

  it('listen stops with one line when the forward target refuses the connection', async () => {
    const app = await receiver();
    const url = app.url;
    await app.close(); // nothing listens there any more
    const running = listen(server.client, {
      forwardTo: url,
      secret: 'whsec_c2VjcmV0',
      pollIntervalMs: 100,
      log: () => {},
    });
    // Watched from the start: on a fast machine `listen` polls and fails while the trigger's own
    // answer is still on its way, and a rejection nobody listens to yet fails the run.
    const stopped = assert.rejects(running, (err: unknown) => {
      assert.ok(err instanceof CliFailure);
      assert.match(err.message, /connection refused/);
      return true;
    });
    await new Promise((r) => setTimeout(r, 300));
    await server.client.testHelpers.triggerEvent({ event: { type: 'order.created' } });
    await stopped;
  });

  it('keeps one local secret per user, private to them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'podpartner-config-'));
    try {
      const first = localSecret({ XDG_CONFIG_HOME: dir });
      assert.match(first, /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.equal(localSecret({ XDG_CONFIG_HOME: dir }), first);
      assert.equal(statSync(join(dir, 'podpartner', 'listen-secret')).mode & 0o777, 0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('trigger makes the event happen and lists what it created', async () => {
    const res = await cli(['trigger', 'order.shipped', '--json'], env);
    assert.equal(res.code, 0, res.stderr);
    const doc = JSON.parse(res.stdout);
    assert.match(doc.trigger.objects.shipment, /^Shipment_/);
    const order = await server.client.orders.get(doc.trigger.objects.order);
    assert.equal(order.order.status.code, 'shipped');
  });

  it('orders list and get print tables, or JSON with --json', async () => {
    const table = await cli(['orders', 'list', '--limit', '2'], env);
    assert.equal(table.code, 0, table.stderr);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    assert.match(header, /^REFERENCE\s+STATUS\s+KIND/);
    assert.equal(rows.length, 2);
    const ref = rows[0].split(/\s+/)[0];
    const json = await cli(['orders', 'get', ref, '--json'], env);
    assert.equal(JSON.parse(json.stdout).order.reference, ref);
    const detail = await cli(['orders', 'get', ref], env);
    assert.match(detail.stdout, new RegExp(`^reference\\s+${ref}$`, 'm'));
  });

  it('a bad key, a server that is down and a bad command: one line each, non-zero exit', async () => {
    const bad = await cli(['orders', 'list'], { ...env, POD_API_KEY: 'sk_test_wrong' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^error: the API refused the key: .* \(401 unauthorized\)\n$/);

    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((r) => closed.close(r));
    const down = await cli(['orders', 'list'], { ...env, POD_BASE_URL: downUrl });
    assert.equal(down.code, 1);
    assert.equal(down.stderr.split('\n').length, 2, down.stderr);
    assert.match(
      down.stderr,
      /^error: cannot reach the API at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): is the server running/,
    );

    const none = await cli(['orders', 'list'], { POD_BASE_URL: server.baseUrl });
    assert.equal(none.code, 1);
    assert.equal(none.stderr, 'error: no API key: pass --api-key or set POD_API_KEY\n');

    const notFound = await cli(['orders', 'get', 'Order_00000000000000000000000000'], env);
    assert.equal(notFound.code, 1);
    assert.match(notFound.stderr, /^error: Order Order_0{26} not found \(404 not_found, request [\w-]+\)\n$/);

    const unknown = await cli(['ordrs'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^error: unknown command "ordrs"/);
  });

  it('every command has --help with an example', async () => {
    for (const command of ALL) {
      const help = commandHelp(command);
      assert.match(help, new RegExp(`Example:\\n {2}${command.example.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      assert.ok(command.example.startsWith(`podpartner ${command.name}`), command.name);
    }
    const top = await cli(['--help'], {});
    for (const command of ALL) assert.ok(top.stdout.includes(`  ${command.name}`), command.name);
    const one = await cli(['orders', 'get', '--help'], {});
    assert.equal(one.code, 0);
    assert.match(one.stdout, /Example:\n {2}podpartner orders get Order_/);
  });

  it('trigger --help lists the event types the API can trigger; another type is refused locally', async () => {
    const help = await cli(['trigger', '--help'], {});
    assert.equal(help.code, 0);
    const listed = [...help.stdout.matchAll(/^ {2}([a-z]+\.[a-z_]+) +\S/gm)].map((m) => m[1]);
    const spec = (await fetch(`${server.baseUrl}/v2/openapi.json`).then((r) => r.json())) as any;
    const schema = spec.paths['/v2/test-helpers/events/trigger'].post.requestBody.content['application/json'].schema;
    const resolved = schema.$ref ? spec.components.schemas[schema.$ref.split('/').pop()] : schema;
    assert.deepEqual(listed, resolved.properties.event.properties.type.enum);
    const wrong = await cli(['trigger', 'order.exploded'], env);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /^error: "order.exploded" cannot be triggered; one of: order.created, order.updated/);
  });
});
