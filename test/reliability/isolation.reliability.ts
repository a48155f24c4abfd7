import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { type Context, valid } from './generate.ts';
import {
  type Operation,
  type World,
  buildWorld,
  collectRefs,
  openapi,
  pngBytes,
  privateRefs,
  prng,
  recordFigures,
} from './support.ts';

const UNLIMITED = 'default=100000000/60,uploads=100000000/60,downloads=100000000/60';

function url(op: Operation, values: Record<string, string>): string {
  return op.path.replace(/\{(\w+)\}/g, (_m, name) => encodeURIComponent(values[name] ?? 'x'));
}

describe('tenant isolation and key permissions, over every operation of the document', () => {
  let t: TestApp;
  let ops: Operation[];
  let w0: World;
  let w1: World;
  let secret0: Map<string, string[]>;
  let cases = 0;
  const failures: string[] = [];

  before(async () => {
    t = await createTestApp({ env: { RATE_LIMITS: UNLIMITED } });
    ({ operations: ops } = await openapi(t));
    w0 = await buildWorld(t, 0);
    w1 = await buildWorld(t, 1);
    secret0 = privateRefs(w0, w1);
  });
  after(async () => {
    recordFigures('isolation', {
      isolationCases: cases,
      notes: [
        `isolation: ${cases} cases over ${ops?.length} operations and ${secret0?.size} private resource kinds (${[...(secret0?.keys() ?? [])].join(', ')})`,
      ],
    });
    await t?.close();
  });

  /** A schema-valid body aimed at the other organization's own resources, so only the path decides. */
  function bodyFor(op: Operation, world: World): unknown {
    if (op.body?.contentType !== 'application/json') return undefined;
    const ctx: Context = { refs: world.refs, foreign: [], cursors: [], png: Buffer.alloc(0), now: t.clock.now() };
    return valid(op.body.schema, 'body', ctx, prng(7));
  }

  it('gives the second organization 404 (never 403, never data) for every path reference of every kind', async () => {
    const kinds = [...secret0.keys()];
    assert.ok(kinds.length >= 10, `resource kinds of organization 1: ${kinds.join(', ')}`);
    for (const expected of [
      'image',
      'order',
      'address',
      'shipment',
      'claim',
      'evidence',
      'webhookendpoint',
      'delivery',
      'event',
    ]) {
      assert.ok(secret0.has(expected), `the world holds a private ${expected} (kinds: ${kinds.join(', ')})`);
    }
    const png = await pngBytes();
    // Reads first, then writes, so a write never removes what a later read aims at.
    const ordered = [...ops.filter((o) => !o.write), ...ops.filter((o) => o.write)];
    for (const op of ordered) {
      const refParams = op.params.filter((p) => p.in === 'path' && /Reference$/.test(p.name));
      if (refParams.length === 0) continue;
      for (const [kind, refs] of secret0) {
        const target = refs[0];
        const values: Record<string, string> = { filename: 'front.png' };
        for (const p of refParams) values[p.name] = target;
        const body = bodyFor(op, w1);
        const res = await call(t, op.method as 'GET', url(op, values), {
          key: t.otherKey,
          ...(body !== undefined
            ? { body }
            : op.body
              ? { payload: png, headers: { 'content-type': op.body.contentType } }
              : {}),
        });
        cases++;
        const where = `${op.id} with organization 0's ${kind} ${target}`;
        if (res.statusCode !== 404 || res.data?.code !== 'not_found')
          failures.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        const leaked = [...collectRefs(res.data).values()]
          .flatMap((s) => [...s])
          .filter((r) => r !== target && [...secret0.values()].some((v) => v.includes(r)));
        if (leaked.length) failures.push(`${where}: the answer names ${leaked.join(', ')}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  it('leaves organization 0 untouched by those writes', async () => {
    for (const kind of ['order', 'webhookendpoint', 'claim']) {
      const ref = secret0.get(kind)![0];
      const path =
        kind === 'order'
          ? `/v2/orders/${ref}`
          : kind === 'claim'
            ? `/v2/claims/${ref}`
            : `/v2/webhook-endpoints/${ref}`;
      const res = await call(t, 'GET', path, { key: t.key });
      cases++;
      assert.equal(res.statusCode, 200, `${kind} ${ref} still there: ${res.body}`);
    }
  });

  it("never lists another organization's rows, even when filtered by its references", async () => {
    const all0 = new Set([...secret0.values()].flat());
    for (const op of ops.filter((o) => o.method === 'GET' && !o.path.includes('{'))) {
      const variants: Array<Record<string, string>> = [{}, { limit: '100' }];
      for (const p of op.params.filter((x) => x.in === 'query' && /Reference$/.test(x.name))) {
        for (const refs of secret0.values()) variants.push({ [p.name]: refs[0] });
      }
      for (const q of variants) {
        const required = op.params.filter((p) => p.in === 'query' && p.required && !(p.name in q));
        if (required.length && Object.keys(q).length === 0) continue;
        const qs = new URLSearchParams(q).toString();
        const res = await call(t, 'GET', `${op.path}${qs ? `?${qs}` : ''}`, { key: t.otherKey });
        cases++;
        const seen = [...collectRefs(res.data).values()]
          .flatMap((s) => [...s])
          .filter((r) => all0.has(r) && !Object.values(q).includes(r));
        if (seen.length) failures.push(`${op.id}?${qs}: lists ${seen.join(', ')}`);
        if (res.statusCode === 200 && Object.values(q).some((r) => all0.has(r))) {
          const rows = Object.values(res.data ?? {}).find(Array.isArray) as unknown[] | undefined;
          if (rows?.length) failures.push(`${op.id}?${qs}: a foreign filter returns ${rows.length} rows`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  it('refuses foreign references inside request bodies without revealing them', async () => {
    const ctx1: Context = { refs: w1.refs, foreign: [], cursors: [], png: Buffer.alloc(0), now: t.clock.now() };
    for (const op of ops.filter((o) => o.body?.contentType === 'application/json' && !o.path.includes('{'))) {
      // the body of organization 1, with each reference field pointed at organization 0's resource of that kind
      const body = valid(
        op.body!.schema,
        'body',
        { ...ctx1, refs: new Map([...w1.refs].map(([k, v]) => [k, secret0.has(k) ? new Set(secret0.get(k)) : v])) },
        prng(11),
      );
      const text = JSON.stringify(body);
      if (![...secret0.values()].flat().some((r) => text.includes(r))) continue;
      const res = await call(t, op.method as 'POST', op.path, { key: t.otherKey, body });
      cases++;
      if (res.statusCode < 400 || res.statusCode === 403 || res.statusCode >= 500)
        failures.push(`${op.id} with organization 0's references: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
  });

  it('gives read-only keys 403 insufficient_permissions on every write operation', async () => {
    const png = await pngBytes();
    for (const op of ops.filter((o) => o.write && !o.readOnlyAllowed)) {
      const values: Record<string, string> = { filename: 'front.png' };
      for (const p of op.params.filter((x) => x.in === 'path'))
        values[p.name] = [...(w0.refs.get(p.name.replace(/Reference$/, '').toLowerCase()) ?? [])][0] ?? 'x';
      const body = bodyFor(op, w0);
      const res = await call(t, op.method as 'POST', url(op, values), {
        key: t.readOnlyKey,
        ...(body !== undefined
          ? { body }
          : op.body
            ? { payload: png, headers: { 'content-type': op.body.contentType } }
            : {}),
      });
      cases++;
      if (res.statusCode !== 403 || res.data?.code !== 'insufficient_permissions')
        failures.push(`${op.id} with a read-only key: ${res.statusCode} ${res.body.slice(0, 160)}`);
    }
    assert.deepEqual(failures, []);
  });

  it('lets read-only keys make exactly the writes marked x-read-only-allowed', async () => {
    const allowed = ops.filter((o) => o.readOnlyAllowed).map((o) => o.id);
    assert.ok(allowed.includes('validateAuth'), `marked: ${allowed.join(', ')}`);
    for (const id of allowed) {
      const op = ops.find((o) => o.id === id)!;
      const res = await call(t, op.method as 'POST', op.path, { key: t.readOnlyKey, body: bodyFor(op, w0) });
      cases++;
      assert.notEqual(res.statusCode, 403, `${id}: ${res.body}`);
    }
  });

  it('stops a revoked key at once on the node that revoked it', async () => {
    const org = t.seed.organizations[0].reference;
    const created = await operator(t, 'POST', `/organizations/${org}/api-keys`, { name: 'reliability revoke' });
    assert.equal(created.statusCode, 200, created.body);
    const { secret, reference } = created.data.apiKey;
    assert.equal((await call(t, 'GET', '/v2/organization', { key: secret })).statusCode, 200);
    const revoked = await operator(t, 'POST', `/organizations/${org}/api-keys/${reference}/revoke`);
    assert.equal(revoked.statusCode, 200, revoked.body);
    const res = await call(t, 'GET', '/v2/organization', { key: secret });
    cases++;
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.data.code, 'unauthorized');
  });
});
