import { createRequire } from 'node:module';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './platform/clock.ts';
import { openDb } from './platform/db/index.ts';
import { migrate } from './platform/db/migrate.ts';
import { createRateLimitStore } from './platform/ratelimit/index.ts';
import { uploadMemory } from './platform/http/upload.ts';
import { setPixelThreadPolicy } from './platform/background-threads.ts';
import { setImageMemoryBudget } from './platform/memory/decodes.ts';
import { loadOrCreateSecret } from './platform/secrets.ts';
import { redactSecrets } from './platform/redact.ts';
import { createServices, type Services } from './services.ts';

export const REDACT = [
  'req.headers["x-service-secret-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.secret',
  '*.password',
  // A Shopify shop's access token, whatever carries it (an error's request, a call's options).
  'req.headers["x-shopify-access-token"]',
  '*.headers["x-shopify-access-token"]',
  'accessToken',
  'access_token',
  '*.accessToken',
  '*.access_token',
];

/**
 * A URL as it may be logged: query values can carry secrets (an invitation token, a key pasted into
 * `?key=`), so every value is replaced and only the parameter names stay.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((p) => `${p.split('=')[0]}=[redacted]`);
  return `${url.slice(0, q)}?${params.join('&')}`;
}

/** The request as a log line shows it: no query values, no secret in the path, no headers. */
function requestForLog(req: { method?: string; url?: string; ip?: string; id?: string }) {
  return { method: req.method, url: redactSecrets(redactUrl(String(req.url ?? ''))), remoteAddress: req.ip };
}

/** An error as a log line shows it: its message and stack may quote what a client sent. */
function errorForLog(err: Error) {
  const out = pino.stdSerializers.err(err) as Record<string, unknown>;
  for (const k of ['message', 'stack']) if (typeof out[k] === 'string') out[k] = redactSecrets(out[k] as string);
  return out;
}

/** Readable lines for a person at a terminal; pino-pretty is loaded only then. */
function prettyStream(): pino.DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (o: object) => pino.DestinationStream;
  return pretty({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' });
}

export function createLogger(
  config: Pick<Config, 'logLevel'> & Partial<Pick<Config, 'logFormat'>>,
  destination?: pino.DestinationStream,
): FastifyBaseLogger {
  const format = config.logFormat ?? 'json';
  const pretty = !destination && (format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true));
  return pino(
    {
      level: config.logLevel,
      redact: { paths: REDACT, censor: '[redacted]' },
      serializers: { req: requestForLog, err: errorForLog },
    },
    pretty ? prettyStream() : destination,
  ) as unknown as FastifyBaseLogger;
}

/** Opens the database, migrates it and wires the services: what `serve`, `worker` and the CLI share. */
export async function startRuntime(
  config: Readonly<Config>,
  opts: { clock?: Clock; log?: FastifyBaseLogger } = {},
): Promise<Services> {
  const log = opts.log ?? createLogger(config);
  setImageMemoryBudget(config.imageMemoryMb);
  setPixelThreadPolicy(config.pixelThreads);
  uploadMemory.setBudget(config.uploadMemoryMb * 1024 * 1024);
  const db = await openDb(config);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return createServices({
    config,
    db,
    clock: opts.clock ?? systemClock,
    log,
    rateLimits: await createRateLimitStore(config),
    secretKey: loadOrCreateSecret(config.dataDir, 'secret-key', config.secretKey),
  });
}
