import { loadConfigOrExit } from './config.ts';
import { startRuntime } from './runtime.ts';
import { boundHeapGrowth } from './platform/memory/heap.ts';
import { startMemoryTrim } from './platform/memory/trim.ts';
import { scheduleMaintenance } from './modules/maintenance/jobs.ts';

// Files this process creates (the embedded database, blobs, secrets) are its user's alone.
process.umask(0o077);

/** A worker process without HTTP: for PostgreSQL deployments that scale jobs apart from the API. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (!config.databaseUrl) {
    console.error(
      'npm run worker needs DATABASE_URL: the embedded database belongs to the server process, which runs its own worker',
    );
    process.exit(1);
  }
  boundHeapGrowth(config.heapGrowthPercent);
  const s = await startRuntime(config);
  await scheduleMaintenance(s);
  await s.production.release.schedule();
  await s.production.floor.schedule();
  s.worker.start();
  const memory = startMemoryTrim(config.memoryTrimSeconds, s.log);
  s.log.info({ worker: s.worker.id, kinds: s.worker.kinds }, 'worker started');
  const stop = async () => {
    memory.stop();
    await s.worker.stop();
    await s.rateLimits.close();
    await s.db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
