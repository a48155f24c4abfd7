import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from './app.ts';
import { loadConfigOrExit } from './config.ts';
import { loadOrCreateSecret } from './platform/secrets.ts';
import { startRuntime } from './runtime.ts';
import { scheduleMaintenance } from './modules/maintenance/jobs.ts';
import { type SeedResult, seedDemoUnlessProduction } from './seed/demo.ts';
import type { Services } from './services.ts';

// Files this process creates (the embedded database, blobs, secrets) are its user's alone.
process.umask(0o077);

/**
 * In the test environment the demo data is loaded on first start and its keys kept in
 * DATA_DIR/demo-keys.json (0600), so later starts can print a working key again.
 */
async function demoKeyOnStart(s: Services, dataDir: string): Promise<string | null> {
  const file = join(dataDir, 'demo-keys.json');
  if (existsSync(file)) {
    try {
      return (JSON.parse(readFileSync(file, 'utf8')) as SeedResult).organizations[0]?.apiKeys.full ?? null;
    } catch {
      // unreadable: issue new keys below
    }
  }
  // On a shared PostgreSQL another node may hold the current demo keys: re-issuing them would
  // revoke its keys, so only an empty database is seeded here (`podctl seed` issues new ones).
  if (s.db.kind === 'postgres' && (await s.organization.countOrganizations()) > 0) return null;
  const seeded = await seedDemoUnlessProduction(s);
  writeFileSync(file, `${JSON.stringify(seeded, null, 2)}\n`, { mode: 0o600 });
  return seeded.organizations[0]?.apiKeys.full ?? null;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const s = await startRuntime(config);
  const operatorToken = loadOrCreateSecret(config.dataDir, 'operator-token', config.operatorToken);

  const demoKey = config.env === 'test' ? await demoKeyOnStart(s, config.dataDir) : null;

  const app = await buildApp(s, { operatorToken, logRequests: true });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = config.publicBaseUrl.replace(`:${config.port}`, `:${port}`);
  const lockFile = join(config.dataDir, 'server.json');
  if (!config.databaseUrl)
    writeFileSync(
      lockFile,
      JSON.stringify({
        pid: process.pid,
        url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
      }),
    );

  await scheduleMaintenance(s);
  if (config.runWorker) s.worker.start();

  const lines = [
    '',
    `  Partner API v2 (${config.env}) on ${s.db.kind === 'pglite' ? `the embedded database in ${config.dataDir}` : 'PostgreSQL'}`,
    `  Base URL:  ${base}/v2`,
    `  Docs:      ${base}/docs`,
    demoKey
      ? `  Demo key:  ${demoKey}   (all demo keys: ${join(config.dataDir, 'demo-keys.json')})`
      : config.env === 'test'
        ? '  Demo keys: run `npm run cli -- seed` to issue new ones'
        : '',
    `  Try:       curl -s -X POST -H "X-Service-Secret-Key: <key>" ${base}/v2/auth/validate`,
    '',
  ];
  process.stdout.write(`${lines.filter((l) => l !== '').join('\n')}\n\n`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    s.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    try {
      await app.close(); // stops accepting, waits for in-flight requests
      await s.worker.stop();
      await s.rateLimits.close();
      await s.db.close();
      if (!config.databaseUrl) rmSync(lockFile, { force: true });
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
