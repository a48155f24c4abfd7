import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { parseSeller } from './config-seller.ts';
import {
  blobStoreConfig,
  bool,
  carrierConfig,
  int,
  parseJobConcurrency,
  parsePgliteThread,
  parsePixelThreads,
  parseProductionHolidays,
  parseProductionRelease,
  parseRateLimits,
  parseRetrySchedule,
  parseReturnAddress,
  parseShopify,
  parseTimeZone,
  supportEmail,
  url,
} from './config/parsers.ts';
import { type Config, ConfigError, type Env } from './config/types.ts';

// The configuration's parts: its types (config/types.ts), the documented list of variables
// (config/variables.ts) and the parsers of single values (config/parsers.ts). This file loads them.
export * from './config/types.ts';
export * from './config/variables.ts';
export {
  carrierConfig,
  parseJobConcurrency,
  parsePgliteThread,
  parseProductionHolidays,
  parseProductionRelease,
  parseRateLimits,
  parseRetrySchedule,
  parseReturnAddress,
  parseShopify,
  parseTimeZone,
} from './config/parsers.ts';

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const appEnv = env.APP_ENV ?? 'test';
  if (appEnv !== 'test' && appEnv !== 'production') {
    throw new ConfigError(`APP_ENV must be "test" or "production", got "${appEnv}"`);
  }
  const host = env.HOST || '127.0.0.1';
  const port = int(env, 'PORT', 3000, 0, 65535);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);
  }
  const logFormat = env.LOG_FORMAT || 'auto';
  if (logFormat !== 'auto' && logFormat !== 'pretty' && logFormat !== 'json')
    throw new ConfigError(`LOG_FORMAT must be auto, pretty or json; got "${logFormat}"`);
  const publicBaseUrl = (
    url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  ).replace(/\/$/, '');
  const trustProxy = bool(env, 'TRUST_PROXY', false);
  const loopback = /^http:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:|\/|$)/.test(publicBaseUrl);
  if (appEnv === 'production' && publicBaseUrl.startsWith('http:') && !loopback && !trustProxy)
    throw new ConfigError(
      `PUBLIC_BASE_URL is ${publicBaseUrl}: production serves sessions and keys over https only. Use an https address, or set TRUST_PROXY=true when a TLS proxy sits in front`,
    );
  return Object.freeze({
    env: appEnv,
    host,
    port,
    publicBaseUrl,
    dataDir: resolve(env.DATA_DIR || './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    pgliteThread: parsePgliteThread(env.PGLITE_THREAD),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    logLevel,
    logFormat,
    runWorker: bool(env, 'RUN_WORKER', true),
    trustProxy,
    jobConcurrency: parseJobConcurrency(env.JOB_CONCURRENCY ?? ''),
    webhookDisableAfterHours: int(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 72, 1, 24 * 365),
    operatorToken: env.OPERATOR_TOKEN || null,
    secretKey: env.SECRET_KEY || null,
    rateLimits: parseRateLimits(env.RATE_LIMITS ?? ''),
    keyCacheTtlSeconds: int(env, 'KEY_CACHE_TTL_SECONDS', 10, 0, 3600),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    uploadLimitBytes: int(env, 'UPLOAD_LIMIT_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    imageMemoryMb: int(env, 'IMAGE_MEMORY_MB', 200, 32, 64 * 1024),
    pixelThreads: parsePixelThreads(env.PIXEL_THREADS),
    uploadMemoryMb: int(env, 'UPLOAD_MEMORY_MB', 64, 1, 64 * 1024),
    shutdownDrainSeconds: int(env, 'SHUTDOWN_DRAIN_SECONDS', appEnv === 'production' ? 5 : 0, 0, 300),
    callbackRetrySeconds: int(env, 'CALLBACK_RETRY_SECONDS', 300, 1, 86400),
    callbackMaxAttempts: int(env, 'CALLBACK_MAX_ATTEMPTS', 864, 1, 100000),
    callbackTimeoutMs: int(env, 'CALLBACK_TIMEOUT_MS', 10000, 10, 600000),
    webhookTestTimeoutMs: int(env, 'WEBHOOK_TEST_TIMEOUT_MS', 3000, 10, 60000),
    supportEmail: supportEmail(env.SUPPORT_EMAIL),
    allowPrivateTargets: bool(env, 'ALLOW_PRIVATE_TARGETS', appEnv === 'test'),
    webhookRetrySchedule: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    requestLogRetentionDays: int(env, 'REQUEST_LOG_RETENTION_DAYS', 14, 1, 365),
    requestLog: bool(env, 'REQUEST_LOG', true),
    heapGrowthPercent: int(env, 'HEAP_GROWTH_PERCENT', 50, 0, 400),
    memoryTrimSeconds: int(env, 'MEMORY_TRIM_SECONDS', 5, 0, 3600),
    returnAddress: parseReturnAddress(env.RETURN_ADDRESS),
    viesUrl: url(env, 'VIES_URL', ['https:', 'http:']),
    seller: parseSeller(env, (m) => new ConfigError(m)),
    shopify: parseShopify(env),
    productionRelease: parseProductionRelease(env.PRODUCTION_RELEASE, appEnv),
    productionTimeZone: parseTimeZone(env.PRODUCTION_TIME_ZONE),
    floorConfigPath: env.FLOOR_CONFIG ? resolve(env.FLOOR_CONFIG) : null,
    productionPromiseDays: int(env, 'PRODUCTION_PROMISE_DAYS', 3, 1, 30),
    productionHolidays: parseProductionHolidays(env.PRODUCTION_HOLIDAYS),
    ...carrierConfig(env, appEnv),
    parcelLostAfterDays: int(env, 'PARCEL_LOST_AFTER_DAYS', 7, 1, 60),
    ...blobStoreConfig(env),
  });
}

/** Reads ./.env into process.env without overriding variables already set. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

/** The variables ./.env sets, read without touching process.env. */
export function readDotEnv(path = '.env'): Env {
  return existsSync(path) ? parseEnv(readFileSync(path, 'utf8')) : {};
}

/** Loads `.env` and the configuration, or ends the process with a message naming the bad variable. */
export function loadConfigOrExit(): Readonly<Config> {
  loadDotEnv();
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}
