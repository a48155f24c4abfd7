import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { build, staleReason } from '../../scripts/build.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

describe('engines tells the truth', () => {
  it('every package in package-lock.json runs on the lowest Node that engines allows', (t) => {
    let semver: { minVersion(r: string): { version: string } | null; satisfies(v: string, r: string): boolean };
    try {
      semver = createRequire(import.meta.url)('semver');
    } catch {
      t.skip('semver is not installed: the engines check was skipped');
      return;
    }
    const lowest = semver.minVersion(pkg.engines.node)!.version;
    assert.ok(semver.satisfies(process.version, pkg.engines.node), `this Node (${process.version}) is allowed`);
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    const demanding = Object.entries<any>(lock.packages)
      .filter(([path, p]) => path && p.engines?.node && !semver.satisfies(lowest, p.engines.node))
      .map(([path, p]) => `${path.replace(/^node_modules\//, '')}@${p.version} wants node ${p.engines.node}`);
    assert.deepEqual(demanding, [], `engines says ${pkg.engines.node}`);
    // The current LTS lines too, for every package this kind of machine installs (a sharp binary
    // for 32-bit Windows is Node 20 only, and is never installed outside it).
    for (const line of ['22.12.0', '24.0.0']) {
      const behind = Object.entries<any>(lock.packages)
        .filter(([path, p]) => path && p.engines?.node && !semver.satisfies(line, p.engines.node))
        .filter(([, p]) => !p.os || p.os.some((os: string) => os === 'linux' || os === 'darwin'))
        .map(([path, p]) => `${path.replace(/^node_modules\//, '')}@${p.version} wants node ${p.engines.node}`);
      assert.deepEqual(behind, [], `Node ${line}`);
      assert.ok(semver.satisfies(line, pkg.engines.node), `engines allows Node ${line}`);
    }
  });
});

describe('a clean npm ci', () => {
  it('declares every dependency with an install script, so npm 11 installs without a warning', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    const scripted = Object.entries<any>(lock.packages)
      .filter(([path, p]) => path && p.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .sort();
    assert.ok(scripted.length > 0, 'the lock file marks install scripts');
    assert.deepEqual(Object.keys(pkg.allowScripts ?? {}).sort(), scripted);
  });
});

/** Waits until `out` (collected output) matches, or fails with the output so far. */
async function waitFor(
  child: ChildProcess,
  out: () => string,
  pattern: RegExp,
  ms = 120_000,
): Promise<RegExpMatchArray> {
  const started = Date.now();
  for (;;) {
    const m = out().match(pattern);
    if (m) return m;
    if (child.exitCode !== null) assert.fail(`exited with ${child.exitCode} before ${pattern}:\n${out()}`);
    if (Date.now() - started > ms) assert.fail(`no ${pattern} within ${ms} ms:\n${out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The compiled service as `npm start` runs it: in a folder of its own (so it does not race other
 * tests over dist/), started from there with stdout a pipe, as under a process manager. The folder
 * is a copy of dist/ when that is current (CI builds it with the same `build()` before the tests),
 * else built from the sources.
 */
describe('the compiled server', () => {
  const outDir = `.test-dist-${process.pid}`;
  const out = join(ROOT, outDir);
  let dataDir: string;
  before(() => {
    if (staleReason() === null) cpSync(join(ROOT, 'dist'), out, { recursive: true });
    else build({ quiet: true, outDir, sdk: false });
    dataDir = mkdtempSync(join(tmpdir(), 'pod-compiled-'));
  });
  const children: ChildProcess[] = [];
  after(async () => {
    for (const c of children) if (c.exitCode === null) await stop(c);
    rmSync(out, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('has its data files beside the JavaScript', () => {
    for (const file of ['main.js', 'worker.js', 'cli.js', 'modules/catalog/devices.json', 'openapi/examples.json'])
      assert.ok(existsSync(join(out, file)), `${outDir}/${file}`);
    assert.ok(existsSync(join(out, 'modules', 'shipping', 'shipping-data.json')));
  });

  it('runs its worker threads from their compiled module files', () => {
    const pixels = pathToFileURL(join(out, 'modules', 'rendering', 'pixel-threads.js')).href;
    const script = [
      `const m = await import(${JSON.stringify(pixels)});`,
      'const hash = await m.thumbHashOnThreads(2, 2, new Uint8Array(16).fill(200));',
      'console.log(JSON.stringify({ bytes: hash.length, ran: m.pixelJobsRun().thumbhash }));',
    ].join('\n');
    const file = join(out, 'pixel-threads-check.mjs');
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const { bytes, ran } = JSON.parse(run.stdout);
    assert.ok(bytes > 0, 'a ThumbHash came back from the thread');
    assert.equal(ran, 1);
  });

  it('knows when it is stale', () => {
    const stamp = join(out, '.build-stamp');
    assert.equal(staleReason(stamp), null);
    const file = join(ROOT, 'src', 'config.ts');
    const { atime, mtime } = statSync(file);
    utimesSync(file, atime, new Date(Date.now() + 60_000));
    try {
      assert.equal(staleReason(stamp), 'src changed since the last build');
    } finally {
      utimesSync(file, atime, mtime);
    }
    assert.equal(staleReason(join(out, 'no-stamp')), 'dist/ has not been built');
  });

  async function start(extra: Record<string, string> = {}) {
    const child = spawn(process.execPath, [join(out, 'main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: dataDir,
        PORT: '0',
        RUN_WORKER: 'false',
        ...extra,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let text = '';
    child.stdout!.on('data', (c) => (text += c));
    child.stderr!.on('data', (c) => (text += c));
    // The first start loads the whole demo catalog: minutes on a machine shared with other suites.
    const [, curl] = await waitFor(child, () => text, /Try: +(curl[^\n]+)\n/, 420_000);
    await waitFor(child, () => text, /operator@pod-service\.example/);
    return { child, text: () => text, curl };
  }
  /** A start that must be refused: its exit code and all it printed. */
  async function refusedStart(extra: Record<string, string>) {
    const child = spawn(process.execPath, [join(out, 'main.js')], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', RUN_WORKER: 'false', ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let text = '';
    child.stdout!.on('data', (c) => (text += c));
    child.stderr!.on('data', (c) => (text += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    assert.notEqual(code, null, `not refused within 60 s:\n${text}`);
    return { code, text };
  }
  /** `podctl orgs list --json`, compiled, on the test's data directory. */
  async function orgsList() {
    const cli = spawn(process.execPath, [join(out, 'cli.js'), 'orgs', 'list', '--json'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    cli.stdout!.on('data', (c) => (text += c));
    cli.stderr!.on('data', (c) => (text += c));
    const [code] = (await once(cli, 'exit')) as [number];
    return { code, text };
  }
  async function stop(child: ChildProcess) {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }

  it('starts with a banner a person can act on, JSON logs on a pipe, and keeps its demo key', async () => {
    const first = await start();
    const text = first.text();
    const key = /X-Service-Secret-Key: (sk_test_\w+)/.exec(first.curl)?.[1];
    assert.ok(key, `the curl line carries the real key: ${first.curl}`);
    const base = /Base URL: +(http:\/\/[^/\s]+)\/v2/.exec(text)![1];
    assert.match(text, new RegExp(`Dashboard: +${base}/dashboard`));
    assert.match(text, new RegExp(`Console: +${base}/console`));
    assert.match(text, /dashboard +partner@demo-cases\.example \/ demo-password-1/);
    assert.ok(
      text.split('\n').some((l) => l.startsWith('{"level":')),
      'logs are JSON when stdout is not a terminal',
    );
    const valid = await fetch(`${base}/v2/auth/validate`, { method: 'POST', headers: { 'x-service-secret-key': key } });
    assert.equal(valid.status, 200);

    // A second server on the same data directory (another port) is refused in one line naming the first.
    const port = new URL(base).port;
    const twin = await refusedStart({ DATA_DIR: dataDir, PORT: '0' });
    assert.equal(twin.code, 1);
    assert.equal(
      twin.text,
      `error: ${dataDir} is in use by the server with pid ${first.child.pid} on port ${port} (${base}): one server per DATA_DIR; stop that one first, or set DATA_DIR to another folder\n`,
    );
    // The CLI goes through the live server's operator API.
    const listed = await orgsList();
    assert.equal(listed.code, 0, listed.text);
    assert.ok(JSON.parse(listed.text).organizations.length >= 2);
    assert.equal((await fetch(`${base}/healthz`)).status, 200, 'the first server runs on');
    // Its port, taken by another data directory's server: one line naming PORT, before any start-up work.
    const elsewhere = mkdtempSync(join(tmpdir(), 'pod-busy-port-'));
    try {
      const busy = await refusedStart({ DATA_DIR: elsewhere, PORT: port });
      assert.equal(busy.code, 1);
      assert.equal(
        busy.text,
        `error: PORT ${port} is already in use on 127.0.0.1: stop what listens there, or set PORT to a free port\n`,
      );
      assert.equal(existsSync(join(elsewhere, 'pglite')), false, 'the database was not even opened');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    await stop(first.child);

    const second = await start({ LOG_FORMAT: 'pretty' });
    const logLines = second.text().split('\n');
    assert.ok(!logLines.some((l) => l.startsWith('{"level":')), 'LOG_FORMAT=pretty: no JSON lines');
    assert.ok(
      logLines.some((l) => /INFO.*Server listening/.test(l)),
      'LOG_FORMAT=pretty: readable lines',
    );
    assert.equal(/X-Service-Secret-Key: (sk_test_\w+)/.exec(second.curl)?.[1], key, 'the same key after a restart');
    const base2 = /Base URL: +(http:\/\/[^/\s]+)\/v2/.exec(second.text())![1];
    const again = await fetch(`${base2}/v2/auth/validate`, {
      method: 'POST',
      headers: { 'x-service-secret-key': key },
    });
    assert.equal(again.status, 200, 'and it still works');
    await stop(second.child);
  });

  it('the worker and the operator CLI run compiled too', async () => {
    const worker = spawn(process.execPath, [join(out, 'worker.js')], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    worker.stderr!.on('data', (c) => (text += c));
    const [code] = await once(worker, 'exit');
    assert.equal(code, 1);
    assert.match(text, /npm run worker needs DATABASE_URL/);

    const listed = await orgsList();
    assert.equal(listed.code, 0, listed.text);
    assert.ok(JSON.parse(listed.text).organizations.some((o: { name: string }) => o.name === 'Demo Cases Co'));
  });

  it('npm scripts run the compiled entry points, and dev runs the source with a watch', () => {
    // With the young generation of docs/memory.md (a start flag: the process cannot set it).
    assert.equal(pkg.scripts.start, 'node --max-semi-space-size=8 scripts/run.mjs main');
    assert.equal(pkg.scripts.worker, 'node scripts/run.mjs worker');
    assert.match(pkg.scripts.dev, /tsx watch .*src\/main\.ts/);
    assert.match(readFileSync(join(ROOT, 'bin', 'podctl.js'), 'utf8'), /runCompiled\('cli'/);
  });
});
