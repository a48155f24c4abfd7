/** One policy of `X-RateLimit-Policy`: `"<name>";q=<quota>;w=<window seconds>`. */
export interface RateLimitPolicy {
  name: string;
  quota: number;
  windowSeconds: number;
}

/** One entry of `X-RateLimit`: `"<name>";r=<remaining>;t=<seconds until a token is regained>`. */
export interface RateLimitRemaining {
  name: string;
  remaining: number;
  resetSeconds: number;
}

/** The rate-limit headers of the last authenticated answer; live values are authoritative. */
export interface RateLimitState {
  policies: RateLimitPolicy[];
  limits: RateLimitRemaining[];
  /** When the answer carrying them arrived. */
  observedAt: Date;
}

/** Splits a structured-field list (`"a";x=1;y=2, "b";x=3`) into name and parameters. */
function parseList(header: string): Array<{ name: string; params: Record<string, number> }> {
  const out: Array<{ name: string; params: Record<string, number> }> = [];
  for (const item of header.split(',')) {
    const [rawName, ...rawParams] = item.trim().split(';');
    const name = rawName?.trim().replace(/^"(.*)"$/, '$1');
    if (!name) continue;
    const params: Record<string, number> = {};
    for (const p of rawParams) {
      const [k, v] = p.split('=');
      const n = Number(v?.trim());
      if (k && Number.isFinite(n)) params[k.trim()] = n;
    }
    out.push({ name, params });
  }
  return out;
}

export function parseRateLimitPolicy(header: string): RateLimitPolicy[] {
  return parseList(header)
    .filter((e) => e.params.q !== undefined && e.params.w !== undefined)
    .map((e) => ({ name: e.name, quota: e.params.q, windowSeconds: e.params.w }));
}

export function parseRateLimit(header: string): RateLimitRemaining[] {
  return parseList(header)
    .filter((e) => e.params.r !== undefined)
    .map((e) => ({ name: e.name, remaining: e.params.r, resetSeconds: e.params.t ?? 0 }));
}

/** The state the headers describe, or null when the answer carried none (e.g. a 401). */
export function rateLimitFromHeaders(headers: Headers, now = new Date()): RateLimitState | null {
  const policy = headers.get('x-ratelimit-policy');
  const limit = headers.get('x-ratelimit');
  if (!policy && !limit) return null;
  return {
    policies: policy ? parseRateLimitPolicy(policy) : [],
    limits: limit ? parseRateLimit(limit) : [],
    observedAt: now,
  };
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}
