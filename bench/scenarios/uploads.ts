/**
 * Other requests while 7500x7500 PNGs are downsized: the load runs exactly as long as the uploads
 * (distinct images, one after the other), against an idle figure taken just before. Runs after the
 * API scenarios, since the allocator keeps the memory of a large decode and it would count against
 * later scenarios.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Bench, SMOKE, timedRow } from '../harness.ts';
import { rssMb } from '../processes.ts';
import { patternPng } from '../setup.ts';
import type { Demo } from './demo.ts';

/** Sends one file as an upload from its own process and prints the answer's status. */
const SEND = `const [file, url, key] = process.argv.slice(1);
fetch(url, { method: 'POST', headers: { 'x-service-secret-key': key, 'content-type': 'application/octet-stream' }, body: require('fs').readFileSync(file) })
  .then((r) => process.stdout.write(String(r.status)), () => process.stdout.write('0'));`;

export async function uploadScenarios(b: Bench, d: Demo) {
  const { base, f, measure, pid, rows } = b;
  const side = SMOKE ? 3000 : 7500;
  // Written to files first and sent by another process: writing 34 MB from this process would stall
  // the load generator itself, and the requests it times would wait for it, not for the service.
  const huge: string[] = [];
  let hugeBytes = 0;
  for (let i = 0; i < (SMOKE ? 1 : 3); i++) {
    const png = await patternPng(side, side, 7 + i);
    hugeBytes = png.length;
    huge.push(join(f.dataDir, `huge-${i}.png`));
    writeFileSync(huge[i], png);
  }
  const idle = await measure('GET /v2/orders/{ref} idle (before uploads)', d.orderLight, {
    connections: 4,
    rate: 200,
  });
  const times: number[] = [];
  const statuses: number[] = [];
  const uploads = (async () => {
    await new Promise((r) => setTimeout(r, 200));
    for (const file of huge) {
      const t0 = Date.now();
      const { stdout } = await promisify(execFile)(process.execPath, [
        '-e',
        SEND,
        file,
        `${base}/v2/images`,
        f.demoKey,
      ]);
      statuses.push(Number(stdout));
      times.push(Date.now() - t0);
    }
  })();
  const rssBefore = rssMb(pid);
  const underUpload = await measure(`GET /v2/orders/{ref} during ${side}x${side} uploads`, d.orderLight, {
    connections: 4,
    rate: 200,
    seconds: 600,
    until: uploads,
  });
  await uploads;
  if (statuses.some((st) => st !== 200)) throw new Error(`large upload failed: ${statuses.join(', ')}`);
  underUpload.ratio = `p99 ${(underUpload.p99 / Math.max(idle.p99, 1)).toFixed(2)}x idle (target 3x)`;
  times.sort((x, y) => x - y);
  rows.push(
    timedRow(`POST /v2/images (${side}x${side} PNG${side > 7000 ? ', downsized' : ''})`, 0, {
      p50: times[Math.floor(times.length / 2)],
      p99: times[times.length - 1],
      rssMb: underUpload.rssMb,
      note: `${huge.length} distinct uploads of ~${(hugeBytes / 1e6).toFixed(0)} MB, sent by another process; p50/p99 = their time (with that process's start); RSS before ${rssBefore} MB`,
    }),
  );
}
