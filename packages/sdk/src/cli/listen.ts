import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '../client.ts';
import { signWebhook } from '../webhooks.ts';
import { CliFailure, print } from './output.ts';

interface ListedEvent {
  reference: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface ListenOptions {
  forwardTo: string;
  /** Only these event types (default: all). */
  events?: string[];
  /** Signing secret; default: the one kept in the user's config folder. */
  secret?: string;
  pollIntervalMs?: number;
  /** Stops after this many forwarded events (tests, scripts); default: until interrupted. */
  maxEvents?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

/** Events committed out of order (several API nodes, long transactions) are caught this far back. */
const OVERLAP_MS = 60_000;

/**
 * The local signing secret: made once per user and kept in the config folder, so the receiving
 * app's configuration stays valid from one run of `listen` to the next (like a real endpoint's secret).
 */
export function localSecret(env: Record<string, string | undefined> = process.env): string {
  const dir = join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'podpartner');
  const file = join(dir, 'listen-secret');
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (saved.startsWith('whsec_')) return saved;
  }
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

/** The delivery body exactly as the service sends it: `{type, timestamp, data}`. */
export function deliveryBody(e: ListedEvent): string {
  return JSON.stringify({ type: e.type, timestamp: e.timestamp, data: e.data });
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * Brings the organization's events to a local URL: polls `GET /v2/events` (newest first, a window
 * overlapping the last one, duplicates dropped by reference) and POSTs each new event to
 * `forwardTo`, signed with Standard Webhooks headers exactly like a real delivery. A target that
 * refuses the connection ends the command; an HTTP error answer is shown and listening goes on.
 */
export async function listen(client: Client, opts: ListenOptions): Promise<{ forwarded: number }> {
  const log = opts.log ?? print;
  const target = parseTarget(opts.forwardTo);
  const secret = opts.secret ?? localSecret();
  const wanted = opts.events && opts.events.length > 0 ? new Set(opts.events) : null;
  const seen = new Map<string, number>();
  let windowStart = Date.now() - 5 * 60_000;

  const poll = async (): Promise<ListedEvent[]> => {
    const fresh: ListedEvent[] = [];
    const createdAfter = new Date(windowStart).toISOString();
    for await (const e of client.events.list({ createdAfter, limit: 100 }) as AsyncIterable<ListedEvent>) {
      if (seen.has(e.reference)) continue;
      const at = Date.parse(e.timestamp);
      seen.set(e.reference, at);
      fresh.push(e);
    }
    const newest = Math.max(windowStart + OVERLAP_MS, ...seen.values());
    windowStart = newest - OVERLAP_MS;
    for (const [ref, at] of seen) if (at < windowStart - OVERLAP_MS) seen.delete(ref);
    return fresh.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  };

  await poll(); // what happened before `listen` started is not forwarded
  const org = await client.organization.get().catch(() => null);
  log(
    `Ready. Forwarding ${wanted ? [...wanted].join(', ') : 'all'} events${org ? ` of ${org.organization.name}` : ''} to ${target.href}`,
  );
  log(`Your webhook signing secret is ${secret} (^C to stop)`);

  let forwarded = 0;
  while (!opts.signal?.aborted) {
    for (const e of await poll()) {
      if (wanted && !wanted.has(e.type)) continue;
      await forward(target, e, secret, log);
      forwarded++;
      if (opts.maxEvents !== undefined && forwarded >= opts.maxEvents) return { forwarded };
    }
    await sleep(opts.pollIntervalMs ?? 2000, opts.signal);
  }
  return { forwarded };
}

function parseTarget(url: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new CliFailure(`--forward-to ${url} is not a URL (e.g. http://localhost:8080/webhooks)`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new CliFailure(`--forward-to must be an http or https URL, got ${target.protocol}`);
  return target;
}

async function forward(target: URL, e: ListedEvent, secret: string, log: (line: string) => void): Promise<void> {
  const body = deliveryBody(e);
  const now = new Date();
  log(`${now.toISOString().slice(11, 19)}  --> ${e.type} [${e.reference}]`);
  let res: Response;
  try {
    res = await fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'pod-partner-api-webhooks/2 (podpartner listen)',
        'webhook-id': e.reference,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signWebhook(secret, e.reference, now, body),
      },
      body,
      // A signed event goes to the address given and nowhere else: a redirect is shown, not followed.
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    await res.body?.cancel().catch(() => {});
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    const why =
      code === 'ECONNREFUSED'
        ? 'connection refused: is your app running there?'
        : (err as Error).name === 'TimeoutError'
          ? 'no answer within 10 s'
          : ((err as { cause?: Error }).cause?.message ?? (err as Error).message);
    throw new CliFailure(`could not forward ${e.reference} to ${target.href}: ${why}`);
  }
  const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
  const redirect = location
    ? ` redirects to ${new URL(location, target).href} (not followed: point --forward-to there)`
    : '';
  log(`${new Date().toISOString().slice(11, 19)}  <-- [${res.status}] POST ${target.href}${redirect} [${e.reference}]`);
}
