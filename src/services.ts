import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Clock } from './platform/clock.ts';
import type { Db } from './platform/db/index.ts';
import { KeyCache } from './platform/http/auth.ts';
import { Cursors } from './platform/http/pagination.ts';
import { Worker } from './platform/jobs/worker.ts';
import type { RateLimitStore } from './platform/ratelimit/index.ts';
import { type BlobStore, LocalBlobStore } from './platform/storage.ts';
import { organizationService } from './modules/organization/service.ts';
import { registerMaintenanceJobs } from './modules/maintenance/jobs.ts';
import { seedDemo } from './seed/demo.ts';

export interface CoreDeps {
  config: Readonly<Config>;
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  rateLimits: RateLimitStore;
  secretKey: string;
  /** Defaults to files under DATA_DIR/blobs. */
  blobs?: BlobStore;
}

/**
 * Every service of the system, wired once; routes, jobs, the CLI and tests all use this.
 * Services are built in dependency order and get what they use passed in explicitly.
 */
export function createServices(core: CoreDeps) {
  const { config, db, clock, log } = core;
  const cursors = new Cursors(core.secretKey);
  const blobs = core.blobs ?? new LocalBlobStore(join(config.dataDir, 'blobs'));
  const worker = new Worker({ db, clock, log });
  const base = { ...core, blobs, cursors, worker };

  let keys: KeyCache | undefined;
  const organization = organizationService({ db, clock, config, cursors, keys: () => keys! });
  keys = new KeyCache(organization.keyResolver, config.keyCacheTtlSeconds * 1000);

  // --- events and webhooks (issue 7) ---

  // --- catalog (issue 3) ---

  // --- images (issue 3) ---

  // --- orders, shipping, shipments, callback (issue 4) ---

  // --- claims (issue 5) ---

  // --- rendering (issue 6) ---

  const services = {
    ...base,
    keys,
    organization,
    // --- services above, listed here ---
    seed: () => seedDemo(services),
  };

  registerMaintenanceJobs(services);
  // --- job registrations ---

  return services;
}

export type Services = ReturnType<typeof createServices>;
