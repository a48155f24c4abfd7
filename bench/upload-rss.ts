/**
 * The server's resident memory around three distinct 7500x7500 PNG uploads (34-44 MB bodies,
 * downsized to 7000 px) sent one after another, without the rest of the benchmark:
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/<a database of your own> tsx bench/upload-rss.ts
 *
 * (a fresh database is created beside the one named, and dropped at the end, as in the benchmark).
 *
 * Runs the compiled server (`npm run build` first) with the memory settings of docs/operations.md,
 * as the benchmark does (`UPLOAD_RSS_ENTRY=src/main.ts` runs it from source). Prints the RSS 3 s
 * after start, the peak sampled every 20 ms during the uploads, and the kernel's high-water mark
 * (VmHWM).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { startRuntime } from '../src/runtime.ts';
import { seedDemoOnce } from '../src/seed/demo-keys.ts';
import { rssMb, startProcess } from './processes.ts';
import { freshDatabase, patternPng } from './setup.ts';

if (!process.env.BENCH_DATABASE_URL) throw new Error('set BENCH_DATABASE_URL to a PostgreSQL database of your own');
const database = await freshDatabase();
const databaseUrl = database.url!;
const SIDE = Number(process.env.UPLOAD_RSS_SIDE ?? 7500);
const dataDir = mkdtempSync(join(tmpdir(), 'pod-upload-rss-'));
const env = {
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl,
  SECRET_KEY: 'upload-rss',
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '1048576',
};

const s = await startRuntime(loadConfig(env), { log: pino({ level: 'silent' }) as never });
const key = (await seedDemoOnce(s, dataDir, { rotateKeys: true })).result!.organizations[0].apiKeys.full;
await s.rateLimits.close();
await s.db.close();

const files: string[] = [];
for (let i = 0; i < 3; i++) {
  files.push(join(dataDir, `huge-${i}.png`));
  // The benchmark's images (34-44 MB each at 7500 px).
  writeFileSync(files[i], await patternPng(SIDE, SIDE, 7 + i));
}

const server = await startProcess(process.env.UPLOAD_RSS_ENTRY ?? 'dist/main.js', env, /Base URL: +http/);
const pid = server.child.pid!;
const hwm = () => Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
await new Promise((r) => setTimeout(r, 3000));
const before = rssMb(pid);
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);

// Sent by another process, as in the benchmark: this one only samples.
const send = `const [file, url, key] = process.argv.slice(1);
fetch(url, { method: 'POST', headers: { 'x-service-secret-key': key, 'content-type': 'application/octet-stream' }, body: require('fs').readFileSync(file) })
  .then(async (r) => process.stdout.write(r.status + ' ' + (await r.text())), (e) => process.stdout.write('0 ' + e));`;
for (const file of files) {
  const t0 = Date.now();
  const { stdout } = await promisify(execFile)(process.execPath, [
    '-e',
    send,
    file,
    `http://127.0.0.1:${server.port}/v2/images`,
    key,
  ]);
  const size = (readFileSync(file).length / 1e6).toFixed(1);
  console.log(`upload of ${size} MB: ${stdout.slice(0, 3)} in ${Date.now() - t0} ms, RSS now ${rssMb(pid)} MB`);
  if (!stdout.startsWith('200')) console.log(stdout);
}
clearInterval(sampler);
console.log(`RSS before ${before} MB, peak ${peak} MB (sampled), VmHWM ${hwm()} MB, after ${rssMb(pid)} MB`);
await server.stop();
await database.drop();
rmSync(dataDir, { recursive: true, force: true });
