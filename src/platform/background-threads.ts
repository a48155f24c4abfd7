import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync, readSync, readdirSync } from 'node:fs';
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
 * util-linux's `chrt` sets the policy, run by a small shell started once per process: starting a
 * child process forks this one, which blocks the event loop for a time that grows with the
 * process's memory (10-80 ms at 40 MB, 100-500 ms at 450 MB on a loaded 2-core machine), so it is
 * paid once and each thread then costs a line written to the shell. Nice 10 is set at once and is
 * what stays where `chrt` is missing or refused, or under the `nice` policy.
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

/** /proc/self/stat, held open: read again from its start, it tells the thread count now. */
let statFd: number | null | undefined;
const statBuffer = Buffer.alloc(4096);

/**
 * How many threads this process has now (field 20 of its stat), or null when not on Linux: ~5 us
 * with the file held open, where listing /proc/self/task costs 50-150 us on the event loop.
 */
export function threadCount(): number | null {
  if (statFd === undefined) {
    try {
      statFd = openSync('/proc/self/stat', 'r');
    } catch {
      statFd = null;
    }
  }
  if (statFd === null) return null;
  try {
    const length = readSync(statFd, statBuffer, 0, statBuffer.length, 0);
    const stat = statBuffer.toString('latin1', 0, length);
    const count = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[20 - 3]);
    return Number.isInteger(count) ? count : null;
  } catch {
    return null;
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

/**
 * How pixel threads go to the background: `idle` (SCHED_IDLE, nice 10 where `chrt` is missing or
 * refused) or `nice` (nice 10 only). A SCHED_IDLE thread yields to every normal thread of its
 * scheduling group, and with autogroup that is every process started from the same terminal or
 * service (decision 0180): beside other CPU-bound work started there (a benchmark run beside a test
 * pass) renders wait for all of it, where at nice 10 they keep a share. Set by PIXEL_THREADS; the
 * test passes preload `nice` (decision 0523).
 */
export type PixelThreadPolicy = 'idle' | 'nice';

/** False under the `nice` policy, or once `chrt` turned out missing or refused: nice 10 is then all there is. */
let idlePolicyWorks = process.platform === 'linux';

/** Sets how threads handed to `toBackground` from now on are lowered (start-up; tests). */
export function setPixelThreadPolicy(policy: PixelThreadPolicy): void {
  if (policy === 'nice') giveUp();
  else idlePolicyWorks = process.platform === 'linux';
}
/** The shell that runs `chrt` for each thread id it reads, and answers the id once done. */
let helper: ChildProcess | null = null;
/** Thread ids written to the shell and not answered yet, in order. */
const unanswered: string[] = [];
/** Waiters for every id written so far to be answered (tests). */
let settledWaiters: Array<() => void> = [];

/**
 * Puts these threads of this process in the background: nice 10 now, SCHED_IDLE moments later
 * (the shell's `chrt`, never waited for). A thread that already runs at SCHED_IDLE (it was started
 * by one that did) costs nothing.
 */
export function toBackground(tids: Iterable<string>): void {
  if (process.platform !== 'linux') return;
  const lines: string[] = [];
  for (const tid of tids) {
    try {
      if (getPriority(Number(tid)) < BACKGROUND_NICE) setPriority(Number(tid), BACKGROUND_NICE);
    } catch {
      // the thread has just exited, or the system refuses: its priority stays as it was
    }
    if (idlePolicyWorks && schedulingPolicy(tid) !== SCHED_IDLE) lines.push(tid);
  }
  if (lines.length === 0) return;
  const shell = helper ?? startHelper();
  if (!shell) return;
  unanswered.push(...lines);
  shell.stdin!.write(`${lines.join('\n')}\n`);
}

/** Resolves when every thread handed to `toBackground` so far has its policy set, or was refused (tests). */
export function backgroundSettled(): Promise<void> {
  if (unanswered.length === 0) return Promise.resolve();
  return new Promise((resolve) => settledWaiters.push(resolve));
}

function startHelper(): ChildProcess | null {
  let child: ChildProcess;
  try {
    // A thread that has exited meanwhile only fails its own chrt; the outcome is read from /proc.
    child = spawn('sh', ['-c', 'while read -r t; do chrt --idle --pid 0 "$t" 2>/dev/null; echo "$t"; done'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
  } catch {
    giveUp();
    return null;
  }
  helper = child;
  child.once('error', giveUp);
  child.once('exit', giveUp);
  child.stdin!.on('error', giveUp);
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const tid of lines) answered(tid);
  });
  // The shell must not keep the process alive; it ends when this process closes its end of the pipe.
  child.unref();
  for (const pipe of [child.stdin, child.stdout]) (pipe as unknown as { unref(): void }).unref();
  return child;
}

function answered(tid: string): void {
  unanswered.shift();
  // Refused (a seccomp filter, a chrt that is not util-linux's, none at all) when a thread still
  // alive did not get the policy.
  const policy = schedulingPolicy(tid);
  if (policy !== null && policy !== SCHED_IDLE) giveUp();
  else if (unanswered.length === 0) wakeSettled();
}

/** The threads keep nice 10 from here on. */
function giveUp(): void {
  idlePolicyWorks = false;
  unanswered.length = 0;
  if (helper) {
    const h = helper;
    helper = null;
    h.stdin?.destroy();
    h.kill();
  }
  wakeSettled();
}

function wakeSettled(): void {
  const waiters = settledWaiters;
  settledWaiters = [];
  for (const w of waiters) w();
}
