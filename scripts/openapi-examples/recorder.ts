/**
 * What every area of scripts/capture-openapi-examples.ts shares: the recorder that keeps one
 * request body and the first success and error per operation, the fixed values that keep the
 * recorded file stable from one capture to the next, and the test app's references.
 */
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

/** Writes the examples sorted by operation; `merge` keeps the operations of the file that these do not name. */
export function writeExamples(examples: Examples, merge = false): Examples {
  const file = resolve(EXAMPLES_FILE);
  const all = merge ? { ...JSON.parse(readFileSync(file, 'utf8')), ...examples } : examples;
  const sorted = Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b))) as Examples;
  writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
  return sorted;
}
