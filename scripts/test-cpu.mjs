/**
 * Preloaded into every test process (`node --import ./scripts/test-cpu.mjs --test …` passes it on
 * to them; a group of files shares one process and one figure): each records, as it exits, the CPU
 * time it used (its own threads, and the child processes it waited for: podctl, Chromium, the
 * compiled server) and its wall time, one JSON line in the file named by POD_TEST_CPU_LOG, which
 * scripts/test-reporter.mjs chooses in the runner's process and reads at the end. Wall time on a
 * shared 2-core machine depends on what else runs; CPU time much less, so the reporter ranks
 * processes by it.
 */
import { appendFileSync, readFileSync } from 'node:fs';

/** User and system seconds of this process and of its waited-for children (Linux /proc), else its own. */
function cpuSeconds() {
  try {
    // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are the 14th-17th.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = 100; // USER_HZ, 100 on every Linux Node supports
    return { own: (+f[11] + +f[12]) / ticks, children: (+f[13] + +f[14]) / ticks };
  } catch {
    const u = process.cpuUsage();
    return { own: (u.user + u.system) / 1e6, children: 0 };
  }
}

const file = process.argv[1] ?? '';
const log = process.env.POD_TEST_CPU_LOG;
// Only a test file's own process: not the processes it starts, which inherit the environment.
if (log && process.env.NODE_TEST_CONTEXT && /\.test\.[cm]?[jt]s$|\.reliability\.ts$/.test(file)) {
  process.on('exit', () => {
    const { own, children } = cpuSeconds();
    // A group's entry (scripts/test-groups.ts) names the files its process ran: the figure is theirs together.
    const files = /** @type {any} */ (globalThis)[Symbol.for('pod.testGroup')];
    const line = { file, own, children, wall: process.uptime(), ...(files ? { files } : {}) };
    try {
      appendFileSync(log, `${JSON.stringify(line)}\n`);
    } catch {
      // A figure lost is no test failure.
    }
  });
}
