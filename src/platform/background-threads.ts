import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Threads of this process that do background pixel work (libvips' workers, the mockup compositor's
 * worker threads) are put below the threads that answer API requests (Linux; elsewhere a no-op).
 *
 * Their scheduling policy is SCHED_IDLE: the kernel preempts such a thread as soon as a normal one
 * (the event loop, the database thread, a libuv pool thread doing file I/O) wakes on its core, while
 * it still gets every cycle nobody else wants, so renders on a quiet node run at full speed. Nice 10
 * alone is only a weight under the EEVDF scheduler: a waking event loop may wait out the running
 * pixel thread's slice (~3 ms), once per hop of a request. Node has no sched_setscheduler, so
 * util-linux's `chrt` sets the policy, one child process for a batch of threads. Nice 10 is set at
 * once and is what stays where `chrt` is missing or refused.
 */

/** Nice value of background threads (SCHED_IDLE ignores it; it is the fallback). */
export const BACKGROUND_NICE = 10;
/** `policy` in /proc/<pid>/task/<tid>/stat for SCHED_IDLE. */
export const SCHED_IDLE = 5;

/** The ids of this process's threads now (Linux; empty elsewhere). */
export function threadIds(): Set<string> {
  try {
    return new Set(readdirSync('/proc/self/task'));
  } catch {
    return new Set();
  }
}

/** A thread's scheduling policy (field 41 of its stat), or null when it has exited or not on Linux. */
export function schedulingPolicy(tid: string | number): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command name (in parentheses, which may hold spaces) start at field 3.
    const policy = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]);
    return Number.isInteger(policy) ? policy : null;
  } catch {
    return null;
  }
}

/** False once `chrt` turned out missing or refused: nice 10 is then all there is. */
let idlePolicyWorks = process.platform === 'linux';
/** Threads waiting for the next `chrt` batch. */
const queued = new Set<string>();
/** The batch running now, if any: the next starts when it ends, so one child process at a time. */
let running: Promise<void> | null = null;

/**
 * Puts these threads of this process in the background: nice 10 now, SCHED_IDLE a few ms later
 * (one `chrt` child for all of them, started off the caller's path and never waited for).
 * A thread that already runs at SCHED_IDLE (it was started by one that did) costs nothing.
 */
export function toBackground(tids: Iterable<string>): void {
  if (process.platform !== 'linux') return;
  for (const tid of tids) {
    try {
      if (getPriority(Number(tid)) < BACKGROUND_NICE) setPriority(Number(tid), BACKGROUND_NICE);
    } catch {
      // the thread has just exited, or the system refuses: its priority stays as it was
    }
    if (idlePolicyWorks && schedulingPolicy(tid) !== SCHED_IDLE) queued.add(tid);
  }
  if (queued.size > 0 && !running) running = runBatches();
}

/** Resolves when every thread handed to `toBackground` so far has its policy set, or was refused (tests). */
export async function backgroundSettled(): Promise<void> {
  while (running) await running;
}

async function runBatches(): Promise<void> {
  // The caller's turn of the event loop ends first: threads found in the same turn share one child.
  await new Promise((resolve) => setImmediate(resolve));
  while (queued.size > 0 && idlePolicyWorks) {
    const batch = [...queued];
    queued.clear();
    const started = await chrtIdle(batch);
    const alive = batch.filter((tid) => schedulingPolicy(tid) !== null);
    // Refused (no chrt, a seccomp filter, not Linux's chrt) when no thread still alive got the policy.
    if (!started || (alive.length > 0 && alive.every((tid) => schedulingPolicy(tid) !== SCHED_IDLE))) {
      idlePolicyWorks = false;
      queued.clear();
    }
  }
  running = null;
}

/** Runs `chrt --idle --pid 0 <tid>` for each thread in one shell; false when it could not start. */
function chrtIdle(tids: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    // A thread that exits meanwhile only fails its own chrt; the outcome is read back from /proc.
    const child = spawn('sh', ['-c', 'for t in "$@"; do chrt --idle --pid 0 "$t" 2>/dev/null; done', 'sh', ...tids], {
      stdio: 'ignore',
    });
    child.once('error', () => resolve(false));
    child.once('exit', () => resolve(true));
  });
}
