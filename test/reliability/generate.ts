import type { Operation, Rng } from './support.ts';
import { ADDRESS, poolFor } from './support.ts';

/** What the generators need to aim at real data. */
export interface Context {
  refs: Map<string, Set<string>>;
  /** References of the other organization (valid shape, never reachable). */
  foreign: string[];
  cursors: string[];
  png: Buffer;
  now: Date;
}

export interface FuzzRequest {
  op: string;
  mutation: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  /** A string, or base64 of raw bytes when `binary`. */
  payload?: string;
  binary?: boolean;
}

const NASTY = [
  '\ud800',
  'a\udfffb',
  '\u0000',
  'x\u0000y',
  '\u202eevil\u202c',
  '\u{1F600}\u{1F4A9}',
  'e\u0301\u0301\u0301',
  '\uFEFF',
  '\uFFFF',
  '\u2028\u2029',
  "'; DROP TABLE orders; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  '%2e%2e%2f',
  '{{7*7}}',
  `$${'{'}jndi:x}`,
  ' ',
  '',
  '\t\n\r',
  'null',
  'true',
  '-1',
  '1e309',
  '0x1f',
  '__proto__',
  'constructor',
  'NaN',
  'Ω≈ç√∫',
  'ＡＢＣ',
  '𝕳𝖊𝖑𝖑𝖔',
  'ﷺ',
  '\u0007\u001b[31m',
];

const FIELD_VALUES: Record<string, unknown> = {
  ...ADDRESS,
  company: 'Acme B.V.',
  url: 'https://example.com/hooks',
  callbackUrl: 'https://example.com/cb',
  name: 'Fuzz',
  comment: 'fuzz',
  carrier: 'PostNL',
  legacyItemSku: 'CASE-IP15-CLEAR',
  customIdentifier: 'fuzz-1',
  primaryColor: '#112233',
  secondaryColor: '#445566',
};

function typeOf(schema: any): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t: string) => t !== 'null') ?? schema.type[0];
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

/** A value that satisfies `schema`, with real references wherever a field names one. */
export function valid(schema: any, name: string, ctx: Context, rng: Rng, depth = 0): unknown {
  if (!schema || depth > 8) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const nonNull = branches.filter((b: any) => b.type !== 'null');
    return valid(rng.pick(nonNull.length ? nonNull : branches), name, ctx, rng, depth);
  }
  if (schema.allOf) return valid(Object.assign({}, ...schema.allOf), name, ctx, rng, depth);
  if (schema.examples?.length && rng.chance(0.3)) return rng.pick(schema.examples);
  switch (typeOf(schema)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [k, s] of Object.entries<any>(schema.properties ?? {})) {
        if (required.has(k) || rng.chance(0.5)) out[k] = valid(s, k, ctx, rng, depth + 1);
      }
      return out;
    }
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? 3, min + 3);
      return Array.from({ length: rng.int(Math.max(min, max > 0 ? 1 : 0), Math.max(min, max)) }, () =>
        valid(schema.items ?? {}, name, ctx, rng, depth + 1),
      );
    }
    case 'integer':
    case 'number': {
      const lo = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
      const hi = Math.min(schema.maximum ?? lo + 5, lo + 5);
      return rng.int(Math.ceil(lo), Math.max(Math.ceil(lo), Math.floor(hi)));
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'string':
      return validString(schema, name, ctx, rng);
    default:
      return rng.pick(['x', 1, true, null]);
  }
}

function validString(schema: any, name: string, ctx: Context, rng: Rng): string {
  if (/References?$/.test(name)) {
    const pool = poolFor(ctx.refs, name);
    if (pool.length) return rng.pick(pool);
  }
  if (name === 'cursor' && ctx.cursors.length) return rng.pick(ctx.cursors);
  if (schema.format === 'date-time') return new Date(ctx.now.getTime() - rng.int(0, 90) * 86400_000).toISOString();
  if (schema.format === 'email') return 'fuzz@example.com';
  if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/x';
  if (schema.default !== undefined && typeof schema.default === 'string') return schema.default;
  const known = FIELD_VALUES[name];
  if (typeof known === 'string') return known;
  const min = schema.minLength ?? 1;
  return 'fuzz'.padEnd(Math.max(min, 4), 'z').slice(0, schema.maxLength ?? 100);
}

/** A valid request for `op`: path, query, body. */
export function validParts(op: Operation, ctx: Context, rng: Rng) {
  const path: Record<string, string> = {};
  const query: Array<[string, string]> = [];
  for (const p of op.params) {
    if (p.in === 'path') path[p.name] = String(valid(p.schema, p.name, ctx, rng));
    else if (p.in === 'query' && (p.required || rng.chance(0.35)))
      query.push([p.name, String(valid(p.schema, p.name, ctx, rng))]);
  }
  const body =
    op.body && op.body.contentType === 'application/json' ? valid(op.body.schema, 'body', ctx, rng) : undefined;
  return { path, query, body };
}

// ---- mutations -------------------------------------------------------------------------------------

type Json = any;

function paths(v: Json, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []) {
  out.push(prefix);
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) paths(x, [...prefix, i], out);
  } else if (v && typeof v === 'object') for (const k of Object.keys(v)) paths(v[k], [...prefix, k], out);
  return out;
}

function getAt(v: Json, p: Array<string | number>) {
  return p.reduce((acc, k) => (acc == null ? acc : acc[k]), v);
}

function setAt(root: Json, p: Array<string | number>, value: Json): Json {
  if (p.length === 0) return value;
  const parent = getAt(root, p.slice(0, -1));
  if (parent && typeof parent === 'object') parent[p[p.length - 1]] = value;
  return root;
}

const WRONG_TYPES = (v: Json): Json[] => [
  typeof v === 'string' ? 12345 : 'not-a-number',
  null,
  true,
  [],
  {},
  [v],
  { value: v },
  1.5,
  -1,
  '',
  2 ** 53 + 2,
];

const EDGE_NUMBERS = [
  0,
  -1,
  -0,
  1,
  99,
  100,
  101,
  1000,
  2147483647,
  2147483648,
  -2147483649,
  9007199254740991,
  2 ** 53 + 2,
  1e308,
  -1e308,
  0.5,
  1.0000001,
  1e-300,
];

export function hugeString(rng: Rng): string {
  return rng.pick(['a', 'é', '😀', '\u0000', 'Order_']).repeat(rng.pick([201, 1001, 10_001, 100_001]));
}

export function nastyString(rng: Rng): string {
  const s = rng.pick(NASTY);
  return rng.chance(0.3) ? `${s}${rng.pick(NASTY)}` : s;
}

export function badReference(ctx: Context, rng: Rng, like?: string): string {
  const sample = like && /_/.test(like) ? like : 'Order_0123456789abcdefghjkmnpqrs';
  const [prefix, body = ''] = sample.split('_');
  return rng.pick([
    `${prefix}_${body.slice(0, 25)}`,
    `${prefix}_${body}x`,
    `${prefix}_${body.toUpperCase()}`,
    `${prefix.toLowerCase()}_${body}`,
    `Store_${body}`,
    `${prefix}_${body.replace(/.$/, 'u')}`,
    `${prefix}_`,
    '_',
    prefix,
    `${prefix}__${body}`,
    `${sample}%00`,
    `${prefix}_${'0'.repeat(26)}`,
    `${sample}/../x`,
    encodeURIComponent(`${sample}/x`),
    nastyString(rng),
    ...(ctx.foreign.length ? [rng.pick(ctx.foreign)] : []),
  ]);
}

export function badCursor(ctx: Context, rng: Rng): string {
  const good = ctx.cursors.length ? rng.pick(ctx.cursors) : 'eyJrIjoxfQ';
  return rng.pick([
    good.slice(0, -3),
    `${good}A`,
    good.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
    Buffer.from('{"id":1,"at":"x"}').toString('base64url'),
    'not a cursor',
    '%%%',
    '',
    'a'.repeat(501),
    Buffer.from('{"__proto__":{"x":1}}').toString('base64'),
    `${good}.${good}`,
    nastyString(rng),
  ]);
}

/** One mutation of a valid JSON body; returns the new body and its name. */
export function mutateBody(body: Json, ctx: Context, rng: Rng): { body: Json; name: string } {
  const copy = body === undefined ? {} : structuredClone(body);
  const all = paths(copy);
  const p = rng.pick(all);
  const here = getAt(copy, p);
  const where = p.join('.') || '(root)';
  const kind = rng.int(0, 7);
  switch (kind) {
    case 0:
      return { body: setAt(copy, p, rng.pick(WRONG_TYPES(here))), name: `wrong type at ${where}` };
    case 1: {
      const objects = all.filter((q) => {
        const v = getAt(copy, q);
        return v && typeof v === 'object';
      });
      const q = objects.length ? rng.pick(objects) : [];
      const target = getAt(copy, q);
      const keys = target && typeof target === 'object' ? Object.keys(target) : [];
      if (keys.length === 0) return { body: copy, name: 'unchanged' };
      const k = rng.pick(keys);
      if (Array.isArray(target)) target.splice(Number(k), 1);
      else delete target[k];
      return { body: copy, name: `missing ${[...q, k].join('.')}` };
    }
    case 2: {
      const objects = all.filter((q) => {
        const v = getAt(copy, q);
        return v && typeof v === 'object' && !Array.isArray(v);
      });
      const q = objects.length ? rng.pick(objects) : [];
      const target = getAt(copy, q);
      if (target && typeof target === 'object')
        target[
          rng.pick(['extra', '__proto__', 'constructor', 'reference', 'organizationId', 'isAdmin', nastyString(rng)])
        ] = rng.pick([1, 'x', null, { a: 1 }]);
      return { body: copy, name: `extra field at ${q.join('.') || '(root)'}` };
    }
    case 3:
      return {
        body: setAt(copy, p, typeof here === 'string' || rng.chance(0.5) ? hugeString(rng) : here),
        name: `huge string at ${where}`,
      };
    case 4:
      return { body: setAt(copy, p, nastyString(rng)), name: `unicode edge at ${where}` };
    case 5:
      return { body: setAt(copy, p, rng.pick(EDGE_NUMBERS)), name: `edge number at ${where}` };
    case 6: {
      const refs = all.filter(
        (q) =>
          (typeof q[q.length - 1] === 'string' && /References?$/.test(String(q[q.length - 1]))) ||
          (typeof getAt(copy, q) === 'string' && /_/.test(getAt(copy, q))),
      );
      const q = refs.length ? rng.pick(refs) : p;
      const v = getAt(copy, q);
      return {
        body: setAt(
          copy,
          q,
          Array.isArray(v)
            ? v.map((x: string) => badReference(ctx, rng, x))
            : badReference(ctx, rng, typeof v === 'string' ? v : undefined),
        ),
        name: `bad reference at ${q.join('.')}`,
      };
    }
    default: {
      // the same subtree repeated deeply: nesting and large arrays
      // a long array repeats only a small value: 5000 copies of a huge string would only test the fuzzer
      const item = JSON.stringify(here ?? 1).length < 1000 ? (here ?? 1) : 1;
      const deep = rng.chance(0.5)
        ? JSON.parse(`${'['.repeat(800)}1${']'.repeat(800)}`)
        : Array.from({ length: 5000 }, () => item);
      return { body: setAt(copy, p, deep), name: `deep or long value at ${where}` };
    }
  }
}
