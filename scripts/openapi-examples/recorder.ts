/**
 * What every area of scripts/capture-openapi-examples.ts shares: the recorder that keeps one
 * request body and the first success and error per operation, the fixed values that keep the
 * recorded file stable from one capture to the next, and the test app's references.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import sharp from 'sharp';
import type { ManualClock } from '../../src/platform/clock.ts';
import { EXAMPLES_FILE, type OperationExamples } from '../../src/openapi/examples.ts';
import { type TestApp, call } from '../../test/support/app.ts';

/** Captured bodies are untyped JSON. */
export type Json = any;

export type Examples = Record<string, OperationExamples>;

const WEBHOOK_URL = 'https://partner.example.com/webhooks/pod';
const SECRET_PLACEHOLDER = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** A fixed request id keeps the recorded file stable from one capture to the next. */
export const REQUEST_ID = '8c0d2f4e-6b1a-4c39-9e57-2d3f1a6b7c90';
/** A well-formed reference that names nothing: the 404 examples. */
export const MISSING = (prefix: string) => `${prefix}_0000000000000000000000zzzz`;

/** Long lists make a reference page unreadable: two items show the shape. */
function shorten(value: Json): Json {
  if (Array.isArray(value)) return value.slice(0, 2).map(shorten);
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value))
      out[k] = k === 'secret' && typeof v === 'string' ? SECRET_PLACEHOLDER : shorten(v);
    return out;
  }
  return value;
}

export class Recorder {
  readonly examples: Examples = {};
  constructor(
    private readonly t: TestApp,
    private readonly receiverUrl: () => string,
  ) {}

  /** Sends a request and records it under `operationId`: the first success and the first error. */
  async send(
    operationId: string,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    opts: Parameters<typeof call>[3] = {},
    expect?: number,
  ) {
    const res = await call(this.t, method, url, { ...opts, headers: { 'x-request-id': REQUEST_ID, ...opts.headers } });
    if (expect !== undefined && res.statusCode !== expect) {
      throw new Error(
        `${operationId} ${method} ${url}: expected ${expect}, got ${res.statusCode} ${res.body.slice(0, 300)}`,
      );
    }
    const entry = (this.examples[operationId] ??= { responses: {} });
    const status = String(res.statusCode);
    const success = res.statusCode < 300;
    const isJson = String(res.headers['content-type'] ?? '').startsWith('application/json');
    if (success && opts.body !== undefined && entry.request === undefined) entry.request = this.clean(opts.body);
    const hasError = Object.keys(entry.responses).some((s) => Number(s) >= 400);
    if (isJson && entry.responses[status] === undefined && (success || !hasError))
      entry.responses[status] = this.clean(res.data);
    return res;
  }

  private clean(body: Json): Json {
    const text = JSON.stringify(shorten(body)).split(this.receiverUrl()).join(WEBHOOK_URL);
    return JSON.parse(text);
  }
}

/** The test app of one capture run, its recorder and the demo seed's references the flow starts from. */
export interface Flow {
  t: TestApp;
  clock: ManualClock;
  r: Recorder;
  receiverUrl: string;
  storeReference: string;
  productReference: string;
  compositionReference: string;
}

export async function png(width: number, height: number, r: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g: 90, b: 220 - r } } })
    .png()
    .toBuffer();
}

/** Lowercase Crockford base32, as src/platform/ids.ts draws references and tokens from. */
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DIGITS = '0123456789';

/** Random values a capture draws afresh, each with the alphabet its stable stand-in is drawn from. */
const RANDOM_VALUES: Array<{ pattern: RegExp; alphabet: string; keep?: RegExp }> = [
  // References: the prefix stays, the MISSING ones stay.
  { pattern: /\b[A-Z][A-Za-z]*_([0-9a-hjkmnp-tv-z]{26})\b/g, alphabet: BASE32, keep: /^0+z+$/ },
  // Tokens in URL paths: evidence files, tracking pages.
  { pattern: /\/([0-9a-hjkmnp-tv-z]{32})\b/g, alphabet: BASE32 },
  { pattern: /"nextCursor":"([A-Za-z0-9_-]+)"/g, alphabet: BASE64URL },
  { pattern: /"TEST(\d{14})"/g, alphabet: DIGITS },
];

/**
 * Replaces each random value (reference, token, cursor, test tracking number) with one derived from
 * the operation that shows it first and its place there, the same wherever it appears, so a new
 * capture rewrites only what changed. Each keeps its prefix, length and alphabet.
 */
export function stableValues(examples: Examples): Examples {
  const stable = new Map<string, string>();
  const out: Examples = {};
  for (const operation of Object.keys(examples).sort()) {
    let seen = 0;
    let text = JSON.stringify(examples[operation]);
    for (const { pattern, alphabet, keep } of RANDOM_VALUES) {
      text = text.replace(pattern, (match: string, random: string) => {
        if (keep?.test(random)) return match;
        let mapped = stable.get(random);
        if (!mapped) {
          let chars = '';
          for (let round = 0; chars.length < random.length; round++) {
            const digest = createHash('sha256').update(`${operation}:${seen}:${round}`).digest();
            chars += Array.from(digest, (b) => alphabet[b % alphabet.length]).join('');
          }
          seen++;
          mapped = chars.slice(0, random.length);
          stable.set(random, mapped);
        }
        return match.replace(random, mapped);
      });
    }
    out[operation] = JSON.parse(text);
  }
  return out;
}

/** Writes the examples sorted by operation; `merge` keeps the operations of the file that these do not name. */
export function writeExamples(captured: Examples, merge = false): Examples {
  const file = resolve(EXAMPLES_FILE);
  const examples = stableValues(captured);
  const all = merge ? { ...JSON.parse(readFileSync(file, 'utf8')), ...examples } : examples;
  const sorted = Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b))) as Examples;
  writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
  return sorted;
}
