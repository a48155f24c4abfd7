import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './platform/clock.ts';
import { openDb } from './platform/db/index.ts';
import { migrate } from './platform/db/migrate.ts';
import { createRateLimitStore } from './platform/ratelimit/index.ts';
import { loadOrCreateSecret } from './platform/secrets.ts';
import { createServices, type Services } from './services.ts';

export const REDACT = [
  'req.headers["x-service-secret-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.secret',
  '*.password',
];

export function createLogger(config: Pick<Config, 'logLevel'>): FastifyBaseLogger {
  return pino({
    level: config.logLevel,
    redact: { paths: REDACT, censor: '[redacted]' },
  }) as unknown as FastifyBaseLogger;
}

/** Opens the database, migrates it and wires the services: what `serve`, `worker` and the CLI share. */
export async function startRuntime(
  config: Readonly<Config>,
  opts: { clock?: Clock; log?: FastifyBaseLogger } = {},
): Promise<Services> {
  const log = opts.log ?? createLogger(config);
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
