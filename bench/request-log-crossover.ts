import { rmSync } from 'node:fs';
import { cpuMs, peakRss, type Proc, startProcess, threadCpuMs } from './processes.ts';
import {
  type RequestLogBench,
  type RequestLogCost,
  type Slice,
  secondDataDir,
  summarize,
  threadsBetween,
} from './request-log.ts';

const TOKEN = 'bench-operator-token';

/**
 * What the request log costs, by crossover: two servers loaded at the same time, one with the log
 * recording and the other with it paused (`PUT /operator/request-log`; paused is what REQUEST_LOG=false
 * starts with), the roles swapped every slice. The cost is the CPU time per request (every thread)
 * over the slices where a server recorded against those where it did not.
 *
 * Why: a shared machine's speed moves by ±25 % from one 2.5 s slice to the next (one server, toggled
 * alone, gives slices of 71 to 142 µs a GET), and loaded together two servers meet the same machine
 * at every instant. But two servers of the same code differ from one start to
 * the next (JIT, heap and data layout: ±4-6 % a repetition in A/A pairs, more than the log costs). With
 * the roles swapped every slice each server is measured as often with the log as without, so a
 * server's own speed weighs on both sides alike and cancels, while the machine's drift is shared.
 *
 * Paused, the hook still runs up to its first check, which is what a server started with
 * REQUEST_LOG=false runs. Each slice ends by pausing, which waits for everything recorded to be
 * written: the database's work for a slice's requests counts in that slice (a partial last write
 * makes the log's side a little dearer, not cheaper). Fresh servers for each repetition; on PGlite each
 * server has its own copy of the data directory (one process per directory), swapped with every repetition.
 */
export async function requestLogCrossoverCost(
  o: RequestLogBench & {
    /** Both servers paused throughout: what the method measures on its own (BENCH_REQUEST_LOG_AA=1). */
    aa?: boolean;
  },
): Promise<RequestLogCost> {
  const otherDir = secondDataDir(o, 'second-server');
  const got = o.endpoints.map(() => ({ on: [] as Slice[], off: [] as Slice[] }));
  const rounds = Math.max(1, o.rounds);
  // Even, so that each server records in half of a repetition's slices.
  const perRound = Math.max(2, 2 * Math.ceil(o.slices / rounds / 2));
  // Loaded together, both sides are measured in every slice: a slice lasts what two turns would.
  const sliceSeconds = Math.max(1, Math.round(((2 * o.seconds) / (perRound * rounds)) * 10) / 10);
  try {
    for (let round = 0; round < rounds; round++) {
      const servers: Proc[] = [];
      try {
        for (const dir of round % 2 === 0 ? [o.dataDir, otherDir] : [otherDir, o.dataDir])
          servers.push(
            await startProcess(
              o.entry,
              { ...o.env, DATA_DIR: dir, OPERATOR_TOKEN: TOKEN, REQUEST_LOG: 'false' },
              o.ready,
            ),
          );
        const url = (p: Proc) => `http://127.0.0.1:${p.port}`;
        const setRecording = async (p: Proc, recording: boolean) => {
          const res = await fetch(`${url(p)}/operator/request-log`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ recording }),
          });
          if (res.status !== 200) throw new Error(`PUT /operator/request-log: ${res.status} ${await res.text()}`);
        };
        for (const [e, endpoint] of o.endpoints.entries()) {
          if (o.warm)
            // Both paths of the hook warmed on both servers: JIT, caches and the first statements.
            for (const recording of [!o.aa, false]) {
              await Promise.all(servers.map((p) => setRecording(p, recording)));
              await Promise.all(servers.map((p) => endpoint(url(p), 2)));
            }
          await Promise.all(servers.map((p) => setRecording(p, false)));
          for (let i = 0; i < perRound; i++) {
            // Each server records every other slice; each repetition starts with the other one.
            const recorder = (i + round) % 2;
            const slice = async (p: Proc, on: boolean) => {
              if (on && !o.aa) await setRecording(p, true);
              const pid = p.child.pid!;
              const cpuBefore = cpuMs(pid);
              const threadsBefore = threadCpuMs(pid);
              const { result, peakMb } = await peakRss(pid, () => endpoint(url(p), sliceSeconds));
              await setRecording(p, false);
              const threads = threadsBetween(pid, threadsBefore, threadCpuMs(pid));
              return { side: on ? 'on' : 'off', slice: { r: result, peakMb, cpuMs: cpuMs(pid) - cpuBefore, threads } };
            };
            const done = await Promise.all(servers.map((p, s) => slice(p, s === recorder)));
            for (const d of done) got[e][d.side as 'on' | 'off'].push(d.slice);
          }
        }
      } finally {
        for (const p of servers) await p.stop();
      }
    }
  } finally {
    if (!o.onPostgres) rmSync(otherDir, { recursive: true, force: true });
  }
  return { results: summarize(got, rounds, perRound), slices: perRound * rounds, rounds, sliceSeconds };
}
