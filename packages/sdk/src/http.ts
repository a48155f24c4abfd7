import { randomUUID } from 'node:crypto';
import { type ApiError, ConnectionError, apiErrorFor } from './errors.ts';
import { type RateLimitState, parseRetryAfter, rateLimitFromHeaders } from './ratelimit.ts';
import type { PreparedBody } from './uploads.ts';
import { VERSION } from './version.ts';

/** Sent with every request, so the service's logs can tell SDK versions apart. */
export const USER_AGENT = `pod-partner-sdk/${VERSION} node/${typeof process === 'object' ? process.version : 'unknown'}`;

export interface ClientOptions {
  /** The organization's secret key (`sk_test_…` / `sk_live_…`), sent as `X-Service-Secret-Key`. */
  apiKey: string;
  /** Server address, with or without the `/v2` suffix. Default `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** Retries of 5xx answers and dropped connections for idempotent calls. Default 2. */
  maxRetries?: number;
  /** Wait for `Retry-After` and retry on `429`. Default true; false throws the 429 `ApiError`. */
  retryOnRateLimit?: boolean;
  /** The longest `Retry-After` (seconds) worth waiting for; a longer one throws. Default 60. */
  maxRateLimitWaitSeconds?: number;
  /** How many 429s in a row one call waits through. Default 5. */
  maxRateLimitRetries?: number;
  /** Time-out of one attempt in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Status polling interval of `renders.createAndWait` (spec: 60 seconds). */
  renderPollIntervalMs?: number;
  /** Replaces the global fetch (e.g. to add a proxy agent). */
  fetch?: typeof fetch;
  /** Your application's name and version, put before the SDK's own in the User-Agent. */
  userAgent?: string;
  /** Called after every answer that carried rate-limit headers. */
  onRateLimit?: (state: RateLimitState) => void;
}

export interface RequestOptions {
  /** `Idempotency-Key` for a POST; the client makes one per call when not given. */
  idempotencyKey?: string;
  /** Extra headers. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Time-out of one attempt; overrides the client's. */
  timeoutMs?: number;
  /** Retries of 5xx answers and dropped connections for this call; overrides the client's. */
  maxRetries?: number;
  /** Wait for `Retry-After` and retry on `429` for this call; overrides the client's. */
  retryOnRateLimit?: boolean;
}

export interface RawRequest {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  json?: unknown;
  upload?: PreparedBody;
  options?: RequestOptions;
  /** Statuses returned to the caller instead of thrown (besides 2xx). */
  accept?: number[];
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export { sleep };

/** Sends requests with the key, reads rate-limit headers, waits and retries where it is safe. */
export class Transport {
  readonly baseUrl: string;
  /** Rate-limit headers of the last authenticated answer. */
  rateLimit: RateLimitState | null = null;
  private readonly fetchFn: typeof fetch;

  constructor(readonly options: ClientOptions) {
    if (!options?.apiKey) throw new TypeError('Client: apiKey is required');
    this.baseUrl = (options.baseUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '').replace(/\/v2$/, '');
    this.fetchFn = options.fetch ?? globalThis.fetch;
  }

  url(path: string, query?: Record<string, unknown>): string {
    const u = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === null) continue;
      for (const one of Array.isArray(v) ? v : [v])
        u.searchParams.append(k, one instanceof Date ? one.toISOString() : String(one));
    }
    return u.toString();
  }

  /**
   * One logical call. A POST carries an `Idempotency-Key` (the same on every attempt), so the
   * server replays instead of repeating it; that makes it as safe to retry as GET/PUT/DELETE.
   */
  async send(req: RawRequest): Promise<Response> {
    const opts = req.options ?? {};
    const method = req.method.toUpperCase();
    const idempotencyKey = method === 'POST' ? (opts.idempotencyKey ?? randomUUID()) : undefined;
    const retryable = (IDEMPOTENT.has(method) || idempotencyKey !== undefined) && (req.upload?.replayable ?? true);
    const maxRetries = opts.maxRetries ?? this.options.maxRetries ?? 2;
    const retryOnRateLimit = opts.retryOnRateLimit ?? this.options.retryOnRateLimit ?? true;
    const url = this.url(req.path, req.query);
    let failures = 0;
    let throttles = 0;

    for (;;) {
      const headers: Record<string, string> = {
        'x-service-secret-key': this.options.apiKey,
        accept: 'application/json, */*',
        'user-agent': this.options.userAgent ? `${this.options.userAgent} ${USER_AGENT}` : USER_AGENT,
        ...opts.headers,
      };
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      let body: BodyInit | undefined;
      if (req.upload) {
        headers['content-type'] = 'application/octet-stream';
        body = req.upload.body();
      } else if (req.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(req.json);
      }
      // The time-out covers the wait for the answer's headers only: a large download may take
      // longer to read than any sensible time-out (the caller's signal still cancels it).
      const timeout = new AbortController();
      const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs ?? 60_000;
      const timer = setTimeout(() => timeout.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;

      let res: Response;
      try {
        res = await this.fetchFn(url, {
          method,
          headers,
          body,
          signal,
          ...(req.upload?.stream ? { duplex: 'half' } : {}),
        } as RequestInit);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        if (retryable && failures < maxRetries) {
          await sleep(backoff(failures++), opts.signal);
          continue;
        }
        const why = timeout.signal.aborted
          ? `timed out after ${timeoutMs} ms`
          : ((err as Error)?.message ?? String(err));
        throw new ConnectionError(`${method} ${req.path}: ${why}`, { cause: err });
      } finally {
        clearTimeout(timer);
      }

      const state = rateLimitFromHeaders(res.headers);
      if (state) {
        this.rateLimit = state;
        this.options.onRateLimit?.(state);
      }
      if (res.ok || req.accept?.includes(res.status)) return res;

      const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
      if (res.status === 429) {
        // A throttled request was refused before it ran: safe to repeat for every method.
        const wait = retryAfter ?? 1;
        const allowed = retryOnRateLimit && throttles < (this.options.maxRateLimitRetries ?? 5);
        if (allowed && wait <= (this.options.maxRateLimitWaitSeconds ?? 60) && (req.upload?.replayable ?? true)) {
          throttles++;
          await res.body?.cancel().catch(() => {});
          await sleep(wait * 1000 + Math.floor(Math.random() * 250), opts.signal);
          continue;
        }
        throw await toApiError(res, retryAfter);
      }
      if (res.status >= 500 && retryable && failures < maxRetries) {
        await res.body?.cancel().catch(() => {});
        await sleep(retryAfter !== undefined ? retryAfter * 1000 : backoff(failures), opts.signal);
        failures++;
        continue;
      }
      if (res.status === 409 && idempotencyKey && failures < maxRetries) {
        const err = await toApiError(res, retryAfter);
        if (err.code !== 'idempotency_request_in_progress') throw err;
        await sleep(backoff(failures++), opts.signal);
        continue;
      }
      throw await toApiError(res, retryAfter);
    }
  }
}

/** 0.5 s, 1 s, 2 s, … with jitter, so many clients do not retry in step. */
function backoff(attempt: number): number {
  const base = Math.min(8000, 500 * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

export async function toApiError(res: Response, retryAfter?: number): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let data: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    // not JSON (a proxy's error page): keep the status and a piece of the text
  }
  const code = typeof data.code === 'string' ? data.code : `http_${res.status}`;
  const message =
    typeof data.message === 'string' ? data.message : text.slice(0, 200) || res.statusText || `HTTP ${res.status}`;
  const requestId = typeof data.requestId === 'string' ? data.requestId : res.headers.get('x-request-id');
  return apiErrorFor(res.status, code, message, requestId, data.details, retryAfter);
}
