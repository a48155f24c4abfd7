import {
  type AppEnv,
  type Config,
  ConfigError,
  type Env,
  type JobPool,
  type PgliteThread,
  type ProductionHolidays,
  type ProductionRelease,
  type ShopifyConfig,
} from './types.ts';
import { SHOPIFY_DEFAULT_SCOPES } from './variables.ts';
import { holidayRegions } from './holidays.ts';

export function parsePgliteThread(raw: string | undefined, name = 'PGLITE_THREAD'): PgliteThread {
  if (raw === undefined || raw === '') return 'worker';
  if (raw !== 'worker' && raw !== 'inline') throw new ConfigError(`${name} must be "worker" or "inline", got "${raw}"`);
  return raw;
}

export function parsePixelThreads(raw: string | undefined): 'idle' | 'nice' {
  if (raw === undefined || raw === '') return 'idle';
  if (raw !== 'idle' && raw !== 'nice') throw new ConfigError(`PIXEL_THREADS must be "idle" or "nice", got "${raw}"`);
  return raw;
}

export function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** An e-mail address for the document's contact, or null when unset. */
export function supportEmail(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(raw.trim()))
    throw new ConfigError(`SUPPORT_EMAIL must be an e-mail address, got "${raw}"`);
  return raw.trim();
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

export function parseRetrySchedule(raw: string | undefined, name = 'WEBHOOK_RETRY_SCHEDULE'): number[] {
  if (raw === undefined || raw.trim() === '') return [5, 300, 1800, 7200, 18000, 36000, 36000];
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20) throw new ConfigError(`${name}: at most 20 retries, got ${parts.length}`);
  return parts.map((p) => {
    if (!/^\d+$/.test(p) || Number(p) > 7 * 86400)
      throw new ConfigError(`${name}: "${p}" is not a whole number of seconds between 0 and 604800`);
    return Number(p);
  });
}

/** SHOPIFY_API_KEY and SHOPIFY_API_SECRET come together or not at all. */
export function parseShopify(env: Record<string, string | undefined>): ShopifyConfig | null {
  const apiKey = env.SHOPIFY_API_KEY?.trim() ?? '';
  const apiSecret = env.SHOPIFY_API_SECRET?.trim() ?? '';
  if (!apiKey && !apiSecret) return null;
  if (!apiKey || !apiSecret)
    throw new ConfigError(
      "SHOPIFY_API_KEY and SHOPIFY_API_SECRET must be set together (the Shopify app's client ID and secret)",
    );
  const raw = env.SHOPIFY_SCOPES?.trim();
  const scopes = raw ? raw.split(',').map((x) => x.trim()) : SHOPIFY_DEFAULT_SCOPES;
  if (scopes.some((x) => !/^(read|write|unauthenticated_read|unauthenticated_write)_[a-z_]+$/.test(x)))
    throw new ConfigError(`SHOPIFY_SCOPES: comma-separated Shopify access scopes such as write_products; got "${raw}"`);
  return { apiKey, apiSecret, scopes };
}

export function parseProductionRelease(raw: string | undefined, appEnv: AppEnv): ProductionRelease {
  const value = raw?.trim() || (appEnv === 'test' ? 'manual' : '10:00,15:00');
  if (value === 'manual' || value === 'immediate') return { mode: value };
  const times = value.split(',').map((t) => t.trim());
  for (const t of times)
    if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(t))
      throw new ConfigError(
        `PRODUCTION_RELEASE must be manual, immediate or cut-off times such as 10:00,15:00; "${t}" is not a time HH:MM`,
      );
  return { mode: 'cutoffs', times: [...new Set(times)].sort() };
}

export function parseTimeZone(raw: string | undefined, name = 'PRODUCTION_TIME_ZONE'): string {
  const zone = raw?.trim() || 'Europe/Amsterdam';
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new ConfigError(`${name} must be an IANA time zone such as Europe/Amsterdam, got "${zone}"`);
  }
  return zone;
}

/**
 * PRODUCTION_HOLIDAYS: `none`, or a comma list of regions whose public holidays the factory keeps
 * (an ISO country, `NL`, or a country and its state or province, `DE-BY`) and closed dates of its
 * own (`2026-12-24`). Default `NL`.
 */
export function parseProductionHolidays(raw: string | undefined, name = 'PRODUCTION_HOLIDAYS'): ProductionHolidays {
  const text = raw?.trim() || 'NL';
  const out: ProductionHolidays = { regions: [], closedDays: [] };
  if (text.toLowerCase() === 'none') return out;
  const known = holidayRegions();
  for (const entry of text.split(',').map((e) => e.trim())) {
    const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(entry);
    if (date) {
      const d = new Date(`${entry}T00:00:00Z`);
      if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== entry)
        throw new ConfigError(`${name}: ${entry} is no calendar date`);
      out.closedDays.push(entry);
      continue;
    }
    const region = /^([A-Z]{2})(?:-([A-Z0-9]{1,3}))?$/.exec(entry.toUpperCase());
    const country = region?.[1];
    const state = region?.[2];
    if (!country || !Object.hasOwn(known, country))
      throw new ConfigError(
        `${name}: "${entry}" is neither a country whose public holidays are known (NL, DE, BE, ...) nor a date YYYY-MM-DD; use none for no holidays`,
      );
    const states = known[country]?.states ?? known[country]?.regions;
    if (state && !(states && Object.hasOwn(states, state)))
      throw new ConfigError(`${name}: ${country} has no state or province ${state}`);
    out.regions.push(state ? { country, state } : { country });
  }
  return out;
}

export function parseReturnAddress(raw: string | undefined, name = 'RETURN_ADDRESS'): string[] {
  const lines = (raw?.trim() ? raw : 'c/o POD Fulfilment Centre|Industrieweg 12|3044 AS Rotterdam|NL')
    .split('|')
    .map((l) => l.trim());
  if (lines.length < 2 || lines.length > 6 || lines.some((l) => !l || l.length > 60))
    throw new ConfigError(`${name}: 2 to 6 non-empty lines of at most 60 characters, separated by |`);
  if (!/^[A-Z]{2}$/.test(lines[lines.length - 1]))
    throw new ConfigError(`${name}: the last line must be an ISO country code such as NL`);
  return lines;
}

export function parseJobConcurrency(raw: string, name = 'JOB_CONCURRENCY'): Record<JobPool, number> {
  const out: Record<JobPool, number> = { renders: 2, deliveries: 8, maintenance: 2 };
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(renders|deliveries|maintenance)=(\d+)$/.exec(part);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 256)
      throw new ConfigError(`${name}: "${part}" is not <pool>=<1..256> with pool renders, deliveries or maintenance`);
    out[m[1] as JobPool] = Number(m[2]);
  }
  // One slot is kept for an organization holding none: with a single render slot, nobody else could render.
  if (out.renders < 2) throw new ConfigError(`${name}: renders takes at least 2 slots, got ${out.renders}`);
  return out;
}

export function parseRateLimits(raw: string, name = 'RATE_LIMITS'): Config['rateLimits'] {
  const limits: Config['rateLimits'] = {
    default: { name: 'default', quota: 3000, windowSeconds: 60 },
    uploads: { name: 'uploads', quota: 5000, windowSeconds: 86400 },
    downloads: { name: 'downloads', quota: 100000, windowSeconds: 86400 },
    // Live previews in a shop's editor: 5 a second sustained per organization, bursts of 300. A
    // node composes 10-20 a second (2 at once, 100-180 ms each, decision 0221): one
    // organization within its quota takes at most half of a node, and its places in the node's
    // queue are capped too (rendering/renders.ts).
    previews: { name: 'previews', quota: 300, windowSeconds: 60 },
  };
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(default|uploads|downloads|previews)=(\d+)\/(\d+)$/.exec(part);
    if (!m)
      throw new ConfigError(
        `${name}: "${part}" is not <policy>=<quota>/<seconds> with policy default, uploads, downloads or previews`,
      );
    const quota = Number(m[2]);
    const windowSeconds = Number(m[3]);
    if (quota < 1 || windowSeconds < 1)
      throw new ConfigError(`${name}: quota and window must be at least 1 in "${part}"`);
    limits[m[1] as keyof Config['rateLimits']] = { name: m[1], quota, windowSeconds };
  }
  return limits;
}

/** BLOB_STORE and the S3_* variables; S3_* are ignored for the local store. */
export function blobStoreConfig(env: Env): Pick<Config, 'blobStore' | 's3'> {
  const kind = env.BLOB_STORE || 'local';
  if (kind !== 'local' && kind !== 's3') throw new ConfigError(`BLOB_STORE must be "local" or "s3", got "${kind}"`);
  if (kind === 'local') return { blobStore: 'local', s3: null };
  const bucket = env.S3_BUCKET;
  if (!bucket) throw new ConfigError('S3_BUCKET is required when BLOB_STORE=s3');
  // DNS-compatible names also work path-style; dots are allowed for older buckets.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError(`S3_BUCKET must be 3-63 lowercase letters, digits, dots or hyphens, got "${bucket}"`);
  }
  const endpoint = url(env, 'S3_ENDPOINT', ['http:', 'https:']);
  const region = env.S3_REGION || 'us-east-1';
  if (!/^[a-z0-9-]+$/.test(region))
    throw new ConfigError(`S3_REGION must be a region name such as us-east-1, got "${region}"`);
  const accessKeyId = env.S3_ACCESS_KEY_ID || null;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || null;
  if (accessKeyId && !secretAccessKey)
    throw new ConfigError('S3_SECRET_ACCESS_KEY is required when S3_ACCESS_KEY_ID is set');
  if (secretAccessKey && !accessKeyId)
    throw new ConfigError('S3_ACCESS_KEY_ID is required when S3_SECRET_ACCESS_KEY is set');
  const forcePathStyle = bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== null);
  return { blobStore: 's3', s3: { bucket, endpoint, region, accessKeyId, secretAccessKey, forcePathStyle } };
}

/** The carrier adapter; production never invents tracking, so it refuses the sandbox. */
export function carrierConfig(env: Env, appEnv: AppEnv): Pick<Config, 'carrier' | 'sendcloud'> {
  const raw = env.CARRIER || (appEnv === 'production' ? 'manual' : 'sandbox');
  if (raw !== 'sandbox' && raw !== 'sendcloud' && raw !== 'manual')
    throw new ConfigError(`CARRIER must be sandbox, sendcloud or manual; got "${raw}"`);
  if (raw === 'sandbox' && appEnv === 'production')
    throw new ConfigError(
      'CARRIER=sandbox invents tracking numbers and cannot run in production: use sendcloud or manual',
    );
  if (raw !== 'sendcloud') return { carrier: raw, sendcloud: null };
  const publicKey = env.SENDCLOUD_PUBLIC_KEY?.trim() ?? '';
  const secretKey = env.SENDCLOUD_SECRET_KEY?.trim() ?? '';
  if (!publicKey || !secretKey)
    throw new ConfigError('CARRIER=sendcloud needs SENDCLOUD_PUBLIC_KEY and SENDCLOUD_SECRET_KEY');
  const apiUrl = (url(env, 'SENDCLOUD_API_URL', ['https:', 'http:']) ?? 'https://panel.sendcloud.sc/api/v3').replace(
    /\/$/,
    '',
  );
  return {
    carrier: raw,
    sendcloud: { publicKey, secretKey, webhookKey: env.SENDCLOUD_WEBHOOK_KEY?.trim() || secretKey, apiUrl },
  };
}
