import { buildApp } from './app.ts';
import { DataDirBusy, type DataDirLock, lockDataDir } from './platform/data-dir-lock.ts';
import { listenProblem, portProblem } from './platform/port.ts';
import { startDraining } from './platform/http/drain.ts';
import { boundHeapGrowth } from './platform/memory/heap.ts';
import { startMemoryTrim } from './platform/memory/trim.ts';
import { type Config, loadConfigOrExit } from './config.ts';
import { loadOrCreateSecret } from './platform/secrets.ts';
import { startRuntime } from './runtime.ts';
import { scheduleMaintenance } from './modules/maintenance/jobs.ts';
import type { SeedResult } from './seed/demo.ts';
import { demoKeysFile, readDemoKeys, seedDemoOnce } from './seed/demo-keys.ts';
import type { Services } from './services.ts';

// Files this process creates (the embedded database, blobs, secrets) are its user's alone.
process.umask(0o077);

/**
 * In the test environment the demo data is loaded on the first start and its keys issued once;
 * later starts show the same keys from DATA_DIR/demo-keys.json. On a shared PostgreSQL only an empty
 * database is seeded here: another node may hold the demo keys (`podctl seed` loads it explicitly).
 */
async function demoOnStart(s: Services): Promise<SeedResult | null> {
  if (s.db.kind === 'postgres' && (await s.organization.countOrganizations()) > 0)
    return readDemoKeys(s.config.dataDir);
  return (await seedDemoOnce(s, s.config.dataDir)).result;
}

/** What a person needs to try the service: addresses, a working key, a curl line and sign-ins. */
function banner(config: Readonly<Config>, s: Services, base: string, demo: SeedResult | null): string {
  const key = demo?.organizations[0]?.apiKeys.full ?? null;
  const where = s.db.kind === 'pglite' ? `the embedded database in ${config.dataDir}` : 'PostgreSQL';
  const lines = [
    `  Partner API v2 (${config.env}) on ${where}`,
    `  Base URL:   ${base}/v2`,
    `  Docs:       ${base}/docs`,
    `  Dashboard:  ${base}/dashboard   (partners)`,
    `  Console:    ${base}/console     (operators)`,
  ];
  if (key) {
    lines.push(
      `  Demo key:   ${key}   (all demo keys: ${demoKeysFile(config.dataDir)})`,
      `  Try:        curl -s -X POST -H "X-Service-Secret-Key: ${key}" ${base}/v2/auth/validate`,
    );
  } else if (config.env === 'test') {
    lines.push('  Demo keys:  not known to this node; `npm run cli -- seed --rotate-keys` issues new ones');
  }
  const users = demo?.dashboardUsers ?? [];
  if (users.length > 0) {
    lines.push('  Sign-ins:   (test environment only)');
    for (const u of users)
      lines.push(`              ${u.role === 'operator' ? 'console  ' : 'dashboard'}  ${u.email} / ${u.password}`);
  }
  return `\n${lines.join('\n')}\n\n`;
}

/** Stops the start in one line on stderr. */
function refuse(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

/** One server per data directory: taken before the embedded database opens, held until exit. */
function claimDataDir(config: Readonly<Config>): DataDirLock | null {
  if (config.databaseUrl) return null;
  try {
    return lockDataDir(config.dataDir, 'server', config.port);
  } catch (err) {
    if (err instanceof DataDirBusy)
      refuse(`${err.message}: one server per DATA_DIR; stop that one first, or set DATA_DIR to another folder`);
    throw err;
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const dataDir = claimDataDir(config);
  // Before the start-up work (migrations, the demo data): a busy port is said at once.
  const busyPort = await portProblem(config.host, config.port);
  if (busyPort) refuse(busyPort);
  boundHeapGrowth(config.heapGrowthPercent);
  const s = await startRuntime(config);
  const operatorToken = loadOrCreateSecret(config.dataDir, 'operator-token', config.operatorToken);

  const demo = config.env === 'test' ? await demoOnStart(s) : null;

  const app = await buildApp(s, { operatorToken, logRequests: true });
  // Taken in the moment since the check: the same one line.
  await app.listen({ host: config.host, port: config.port }).catch((err: NodeJS.ErrnoException) => {
    if (err.code?.startsWith('EADDR') || err.code === 'EACCES') refuse(listenProblem(err, config.host, config.port));
    throw err;
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = config.publicBaseUrl.replace(`:${config.port}`, `:${port}`);
  // Where the operator CLI finds this server's operator API while it holds the database.
  dataDir?.describe({ port, url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}` });

  await scheduleMaintenance(s);
  await s.production.release.schedule();
  await s.production.floor.schedule();
  if (config.runWorker) s.worker.start();
  // Start-up (migrations, the demo data, the database's compiled code) leaves tens of MB freed in
  // the C heap: given back before the node reports ready, then every few seconds.
  const memory = startMemoryTrim(config.memoryTrimSeconds, s.log);
  await memory.trim();

  process.stdout.write(banner(config, s, base, demo));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const drainMs = config.shutdownDrainSeconds * 1000;
    s.log.info({ signal, drainSeconds: config.shutdownDrainSeconds }, 'shutting down');
    const force = setTimeout(() => process.exit(1), drainMs + 30_000);
    force.unref();
    try {
      // Out of the proxy's rotation first (readyz 503, connections closed after each answer), while
      // still answering whatever arrives; then stop accepting and wait for the requests in flight.
      startDraining(app);
      if (drainMs > 0) await new Promise((r) => setTimeout(r, drainMs));
      await app.close();
      memory.stop();
      await s.worker.stop();
      await s.rateLimits.close();
      await s.db.close();
      dataDir?.release();
    } finally {
      clearTimeout(force);
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
