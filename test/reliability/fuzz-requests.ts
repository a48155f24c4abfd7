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
import { type Operation, prng, type Rng } from './support.ts';

// The requests of the fuzz run (fuzz.reliability.ts): each from its own PRNG stream of the seed.

export const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

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
