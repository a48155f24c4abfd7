import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { type TestApp, createTestApp } from '../support/app.ts';
import {
  type Context,
  type FuzzRequest,
  badCursor,
  badReference,
  hugeString,
  mutateBody,
  nastyString,
  validParts,
} from './generate.ts';
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
  REF_ANYWHERE,
  type Rng,
} from './support.ts';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 20_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const CONCURRENCY = 4;
const REGRESSIONS = join(import.meta.dirname, 'regressions.json');
const UNLIMITED = 'default=100000000/60,uploads=100000000/60,downloads=100000000/60';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Percent-encodes what encodeURIComponent can (lone surrogates become their raw UTF-8 bytes). */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s
      .split('')
      .map((c) => {
        try {
          return encodeURIComponent(c);
        } catch {
          return '%ED%A0%80';
        }
      })
      .join('');
  }
}

function buildUrl(
  op: Operation,
  path: Record<string, string>,
  query: Array<[string, string]>,
  rawPath = false,
): string {
  let url = op.path.replace(/\{(\w+)\}/g, (_m, name) => (rawPath ? path[name] : enc(path[name] ?? '')));
  if (query.length) url += `?${query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}`;
  return url;
}

const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=xyz',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/json',
  'image/png',
  'application/jsonx',
  ';;;',
  'application/json; charset=latin1',
  'text/html; charset=utf-8',
];

/** Request `i` of the run: generated from its own PRNG stream, so any single case can be re-run. */
export function generate(
  i: number,
  ops: Operation[],
  ctx: Context,
  keys: { full: string; readOnly: string; other: string },
): FuzzRequest {
  const rng: Rng = prng(SEED * 7919 + i);
  const op = ops[i % ops.length];
  const { path, query, body } = validParts(op, ctx, rng);
  const headers: Record<string, string> = { 'x-service-secret-key': keys.full };
  let payload: string | undefined;
  let binary = false;
  let mutation = 'valid';
  let rawPath = false;
  const json = op.body?.contentType === 'application/json';
  if (json) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  } else if (op.body) {
    payload = ctx.png.toString('base64');
    binary = true;
    headers['content-type'] = op.body.contentType;
  }
  const pathNames = Object.keys(path);
  let kind =
    rng.next() < 0.12
      ? 'valid'
      : rng.pick([
          'body',
          'body',
          'body',
          'path',
          'path',
          'query',
          'query',
          'cursor',
          'contentType',
          'truncated',
          'headers',
          'binary',
        ]);
  // an operation without that part gets the next kind of mutation instead
  if (kind === 'body' && !json) kind = 'path';
  if (kind === 'path' && pathNames.length === 0) kind = 'query';
  switch (kind) {
    case 'body': {
      const m = mutateBody(body, ctx, rng);
      if (rng.chance(0.25) && !m.name.startsWith('deep')) {
        const m2 = mutateBody(m.body, ctx, rng);
        mutation = `${m.name}; ${m2.name}`;
        payload = JSON.stringify(m2.body);
      } else {
        mutation = m.name;
        payload = JSON.stringify(m.body);
      }
      break;
    }
    case 'path': {
      const name = rng.pick(pathNames);
      const how = rng.int(0, 4);
      path[name] =
        how === 0
          ? badReference(ctx, rng, path[name])
          : how === 1
            ? hugeString(rng).slice(0, rng.pick([199, 200, 201, 600]))
            : how === 2
              ? nastyString(rng) || 'x'
              : how === 3
                ? badReference(ctx, rng)
                : rng.pick(ctx.foreign.length ? ctx.foreign : ['Order_0123456789abcdefghjkmnpqrs']);
      if (path[name] === '') path[name] = '%20';
      if (rng.chance(0.1)) {
        rawPath = true;
        path[name] = rng.pick(['%', '%zz', '%ED%A0%80', '%FF%FE', '%00', 'a%2Fb', '..', '%2e%2e']);
      }
      mutation = `path ${name}`;
      break;
    }
    case 'query': {
      const how = rng.int(0, 4);
      const params = op.params.filter((p) => p.in === 'query');
      if (how === 0 || params.length === 0) {
        query.push([
          rng.pick(['unknown', 'organizationId', '__proto__', 'limit[]', 'a'.repeat(300)]),
          rng.pick(['1', nastyString(rng)]),
        ]);
        mutation = 'extra query parameter';
      } else {
        const p = rng.pick(params);
        const value =
          how === 1
            ? rng.pick(['abc', '-1', '0', '101', '1e3', '1.5', '', 'true', '[]', '{}', '99999999999999999999'])
            : how === 2
              ? nastyString(rng)
              : how === 3
                ? hugeString(rng).slice(0, rng.pick([101, 501, 5000]))
                : badReference(ctx, rng);
        if (rng.chance(0.5)) query.push([p.name, String(value)], [p.name, rng.pick(['1', '2', 'x'])]);
        else {
          const idx = query.findIndex(([k]) => k === p.name);
          if (idx >= 0) query[idx] = [p.name, String(value)];
          else query.push([p.name, String(value)]);
        }
        mutation = `query ${p.name}`;
      }
      break;
    }
    case 'cursor':
      if (op.params.some((p) => p.name === 'cursor')) {
        query.push(['cursor', badCursor(ctx, rng)]);
        if (rng.chance(0.3)) query.push(['cursor', badCursor(ctx, rng)]);
        mutation = 'bad cursor';
      } else {
        query.push(['cursor', badCursor(ctx, rng)]);
        mutation = 'cursor on a list-less operation';
      }
      break;
    case 'contentType': {
      const ct = rng.pick(CONTENT_TYPES);
      if (rng.chance(0.15)) delete headers['content-type'];
      else headers['content-type'] = ct;
      if (payload === undefined && rng.chance(0.5)) payload = rng.pick(['{}', 'a=b', '<x/>']);
      mutation = `content-type ${headers['content-type'] ?? '(none)'}`;
      break;
    }
    case 'truncated':
      if (payload !== undefined && !binary) {
        payload = payload.slice(0, rng.int(0, Math.max(0, payload.length - 1)));
        mutation = 'truncated body';
      } else if (binary) {
        payload = ctx.png.subarray(0, rng.int(0, ctx.png.length - 1)).toString('base64');
        mutation = 'truncated upload';
      } else {
        headers['content-type'] = 'application/json';
        payload = rng.pick(['{', '{"a":', 'nul', '[1,2', '"x', '{}}']);
        mutation = 'unexpected truncated body';
      }
      break;
    case 'headers': {
      const how = rng.int(0, 6);
      if (how === 0) headers['x-service-secret-key'] = keys.readOnly;
      else if (how === 1)
        headers['x-service-secret-key'] = rng.pick([
          '',
          'sk_live_abc',
          'sk_test_',
          `sk_test_${'a'.repeat(40)}`,
          'x'.repeat(10_000),
          nastyString(rng).replace(/[^\t\x20-\x7e\x80-\xff]/g, '?'),
        ]);
      else if (how === 2) delete headers['x-service-secret-key'];
      else if (how === 3) headers['idempotency-key'] = rng.pick(['x'.repeat(300), '', ' ', 'k1', 'é', `${Date.now()}`]);
      else if (how === 4) headers['x-request-id'] = rng.pick(['../../x', 'a'.repeat(500), '<b>', 'ok-id']);
      else if (how === 5) headers.accept = rng.pick(['text/html', 'application/xml', '*/*', 'image/*', ';;']);
      else headers['x-service-secret-key'] = keys.other;
      if (headers['x-service-secret-key'] === '') delete headers['x-service-secret-key'];
      mutation = `header variant ${how}`;
      break;
    }
    case 'binary':
      if (binary) {
        const bytes = rng.pick([
          Buffer.alloc(0),
          Buffer.from('GIF89a'),
          Buffer.from('\x89PNG\r\n\x1a\n'),
          Buffer.from(JSON.stringify({ a: 1 })),
          Buffer.from(Array.from({ length: 4096 }, () => rng.int(0, 255))),
          Buffer.concat([ctx.png, Buffer.from('trailing')]),
        ]);
        payload = bytes.toString('base64');
        mutation = 'odd upload bytes';
      } else if (payload !== undefined) {
        payload = Buffer.from(payload).toString('base64');
        binary = true;
        headers['content-type'] = rng.pick(['application/json', 'application/octet-stream']);
        if (rng.chance(0.5))
          payload = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(payload, 'base64')]).toString('base64');
        mutation = 'invalid utf-8 or BOM in a JSON body';
      } else {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify({ unexpected: 'body' });
        mutation = 'body on an operation without one';
      }
      break;
    default:
      break;
  }
  return { op: op.id, mutation, method: op.method, url: buildUrl(op, path, query, rawPath), headers, payload, binary };
}

interface Problem {
  request: FuzzRequest;
  status: number;
  problem: string;
}

describe(`fuzzing every operation of the OpenAPI document (${REQUESTS} requests, seed ${SEED})`, () => {
  let t: TestApp;
  let ops: Operation[];
  let ctx: Context;
  let mine: World;
  let theirs: World;
  const validators = new Map<string, (v: unknown) => boolean>();
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  let doc: any;
  let foreign = new Set<string>();

  before(async () => {
    t = await createTestApp({ env: { RATE_LIMITS: UNLIMITED } });
    ({ doc, operations: ops } = await openapi(t));
    mine = await buildWorld(t, 0);
    theirs = await buildWorld(t, 1);
    const cursors: string[] = [];
    for (const op of ops.filter(
      (o) => o.method === 'GET' && o.params.some((p) => p.name === 'cursor') && !o.path.includes('{'),
    )) {
      const res = await t.app.inject({
        method: 'GET',
        url: `${op.path}?limit=1`,
        headers: { 'x-service-secret-key': t.key },
      });
      const next = res.statusCode === 200 ? JSON.parse(res.body).nextCursor : null;
      if (next) cursors.push(next);
    }
    const foreignRefs = [...privateRefs(theirs, mine).values()].flat();
    ctx = { refs: mine.refs, foreign: foreignRefs, cursors, png: await pngBytes(32), now: t.clock.now() };
    foreign = new Set(foreignRefs);
  });
  after(() => t?.close());

  function validatorFor(op: Operation, status: string) {
    const id = `${op.id}:${status}`;
    if (!validators.has(id)) validators.set(id, ajv.compile({ ...op.success[status], components: doc.components }));
    return validators.get(id)!;
  }

  async function send(req: FuzzRequest): Promise<{ status: number; problems: string[] }> {
    const op = ops.find((o) => o.id === req.op)!;
    const res = await t.app.inject({
      method: req.method as 'GET',
      url: req.url,
      headers: req.headers,
      payload: req.payload === undefined ? undefined : req.binary ? Buffer.from(req.payload, 'base64') : req.payload,
    });
    const status = res.statusCode;
    const problems: string[] = [];
    if (status >= 500) problems.push(`5xx: ${status} ${res.body.slice(0, 200)}`);
    if (op && !op.statuses.has(String(status)) && !op.statuses.has(`${String(status)[0]}XX`))
      problems.push(`undocumented status ${status} for ${op.id}`);
    const type = String(res.headers['content-type'] ?? '');
    if (!res.headers['x-request-id']) problems.push('no X-Request-Id header');
    if (status === 204 && res.body.length > 0) problems.push('204 with a body');
    if (status >= 400) {
      let body: any = null;
      try {
        body = JSON.parse(res.body);
      } catch {
        // reported below
      }
      if (
        !body ||
        typeof body.code !== 'string' ||
        !/^[a-z][a-z0-9_]*$/.test(body.code) ||
        typeof body.message !== 'string' ||
        !body.message
      ) {
        problems.push(`error body is not {code, message}: ${res.body.slice(0, 200)}`);
      }
    } else if (status >= 200 && status < 300 && op?.success[String(status)] && type.includes('json')) {
      const validate = validatorFor(op, String(status));
      let body: unknown;
      try {
        body = JSON.parse(res.body);
      } catch {
        problems.push('2xx body is not JSON');
      }
      if (body !== undefined && !validate(body))
        problems.push(`2xx body does not match the schema: ${ajv.errorsText((validate as any).errors).slice(0, 300)}`);
      // with the first organization's keys, nothing of the second may show up
      const asOther = req.headers['x-service-secret-key'] === t.otherKey;
      const leaked = asOther
        ? []
        : [...collectRefs(body).values()].flatMap((x) => [...x]).filter((r) => foreign.has(r));
      if (leaked.length) problems.push(`2xx body shows the other organization's ${leaked.join(', ')}`);
    }
    return { status, problems };
  }

  it('replays every saved regression case', async () => {
    const saved: Array<FuzzRequest & { problem?: string }> = existsSync(REGRESSIONS)
      ? JSON.parse(readFileSync(REGRESSIONS, 'utf8'))
      : [];
    const failures: string[] = [];
    for (const r of saved) {
      // references differ per database: swap each for one of the same kind from this run's pool
      const swap = (s: string) =>
        s.replace(REF_ANYWHERE, (whole, prefix: string) => {
          const pool = [...(mine.refs.get(prefix.toLowerCase()) ?? [])];
          return pool.length ? pool[0] : whole;
        });
      const req = {
        ...r,
        url: swap(r.url),
        payload: r.payload && !r.binary ? swap(r.payload) : r.payload,
        headers: {
          ...r.headers,
          'x-service-secret-key':
            r.headers['x-service-secret-key'] === '(other)'
              ? t.otherKey
              : r.headers['x-service-secret-key'] === '(read-only)'
                ? t.readOnlyKey
                : t.key,
        },
      };
      const { problems } = await send(req);
      if (problems.length) failures.push(`${r.op} ${r.mutation} ${r.method} ${r.url}: ${problems.join('; ')}`);
    }
    assert.deepEqual(failures, [], `regression cases fail again:\n${failures.join('\n')}`);
  });

  it('never answers 5xx, an undocumented status, a bad error body or an off-schema success', async () => {
    const keys = { full: t.key, readOnly: t.readOnlyKey, other: t.otherKey };
    const byStatus = new Map<number, number>();
    const problems: Problem[] = [];
    const seen = new Set<string>();
    let fiveXX = 0;
    let undocumented = 0;
    let nextIndex = 0;
    const started = Date.now();
    const workers = Array.from({ length: CONCURRENCY }, async () => {
      while (nextIndex < REQUESTS) {
        const i = nextIndex++;
        const req = generate(i, ops, ctx, keys);
        const { status, problems: found } = await send(req);
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        if (status >= 500) fiveXX++;
        for (const p of found) {
          if (p.startsWith('undocumented')) undocumented++;
          const sig = `${req.op} ${p.replace(/:.*/s, '')}`;
          if (!seen.has(sig)) {
            seen.add(sig);
            problems.push({ request: { ...req, mutation: `#${i} ${req.mutation}` }, status, problem: p });
          }
        }
      }
    });
    await Promise.all(workers);
    const seconds = (Date.now() - started) / 1000;
    recordFigures('fuzz', {
      requestsFuzzed: REQUESTS,
      fiveXX,
      undocumented,
      notes: [
        `fuzz: ${REQUESTS} requests in ${seconds.toFixed(0)} s over ${ops.length} operations, seed ${SEED}; statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort((a, b) => a[0] - b[0])))}`,
        `fuzz: ${problems.length} distinct problems`,
      ],
    });
    if (problems.length) {
      const saved: unknown[] = existsSync(REGRESSIONS) ? JSON.parse(readFileSync(REGRESSIONS, 'utf8')) : [];
      const redact = (k: string) =>
        k === t.otherKey ? '(other)' : k === t.readOnlyKey ? '(read-only)' : k === t.key ? '(full)' : k;
      for (const p of problems) {
        const headers = { ...p.request.headers };
        if (headers['x-service-secret-key']) headers['x-service-secret-key'] = redact(headers['x-service-secret-key']);
        saved.push({ ...p.request, headers, problem: p.problem });
      }
      if (process.env.FUZZ_SAVE !== '0') writeFileSync(REGRESSIONS, `${JSON.stringify(saved, null, 2)}\n`);
    }
    assert.equal(
      problems.length,
      0,
      `problems found (saved to regressions.json):\n${problems.map((p) => `${p.request.op} [${p.request.mutation}] ${p.request.method} ${p.request.url.slice(0, 160)} -> ${p.status}: ${p.problem}`).join('\n')}`,
    );
    assert.ok(byStatus.get(200) || byStatus.get(204), 'some generated requests succeed');
  });
});
