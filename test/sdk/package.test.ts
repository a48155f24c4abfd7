import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { VERSION } from '../../packages/sdk/src/version.ts';
import { type SdkServer, startSdkServer } from './helpers.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SDK = join(ROOT, 'packages', 'sdk');
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
const NPM_ENV = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' };

/**
 * Runs a command in the consumer project; its output comes back as text. Asynchronous: the
 * server these scripts call runs in this process and must keep answering meanwhile.
 */
async function run(
  cwd: string,
  file: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(file, args, { cwd, env: { ...NPM_ENV, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}

async function ok(cwd: string, file: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const res = await run(cwd, file, args, env);
  assert.equal(res.status, 0, `${file} ${args.join(' ')} failed:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

/** The commands of the README's Install section, as a partner copies them. */
function documentedInstall(): { pack: string[]; tarball: string } {
  const readme = readFileSync(join(SDK, 'README.md'), 'utf8');
  const block = /## Install\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const commands = block.split('\n').map((l) => l.replace(/#.*/, '').trim());
  const pack = commands.find((c) => c.startsWith('npm pack'));
  const install = commands.find((c) => c.startsWith('npm install'));
  assert.ok(pack && install, `the Install section packs and installs:\n${block}`);
  return { pack: pack.split(/\s+/).slice(1), tarball: install.split('/').pop()! };
}

/**
 * The SDK as a partner gets it, by the README's commands: `npm pack` in the service's folder,
 * installed from the tarball into an empty project with no registry (the package has no
 * dependencies), then used from plain ESM, CommonJS and TypeScript with the settings `tsc --init`
 * writes, against a running server.
 */
describe('the SDK package, installed from its tarball', () => {
  let server: SdkServer;
  let work: string;
  let project: string;
  let tarball: string;
  before(async () => {
    const documented = documentedInstall();
    work = mkdtempSync(join(tmpdir(), 'pod-sdk-pack-'));
    // As written (its prepack builds the SDK), with the tarball put in the test's folder.
    const packed = JSON.parse(
      execFileSync('npm', [...documented.pack, '--json', '--pack-destination', work], {
        cwd: ROOT,
        env: NPM_ENV,
        encoding: 'utf8',
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.equal(packed[0].filename, documented.tarball, 'the README names the file npm pack writes');
    tarball = join(work, packed[0].filename);
    project = join(work, 'shop');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
    await ok(project, 'npm', ['install', '--offline', '--no-audit', '--ignore-scripts', tarball]);
    server = await startSdkServer();
  });
  after(async () => {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('ships compiled JavaScript, declarations, README and licence, no TypeScript sources', () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    for (const file of [
      'package/package.json',
      'package/README.md',
      'package/LICENSE',
      'package/dist/esm/index.js',
      'package/dist/esm/index.d.ts',
      'package/dist/cjs/index.js',
      'package/dist/cjs/index.d.ts',
      'package/dist/esm/cli/main.js',
    ])
      assert.ok(listing.includes(file), `${file} is in the tarball`);
    assert.deepEqual(
      listing.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts')),
      [],
      'no TypeScript sources',
    );
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'pod-partner-sdk', 'package.json'), 'utf8'));
    assert.equal(manifest.version, VERSION, 'src/version.ts follows package.json');
    assert.equal(manifest.private, undefined);
    assert.equal(manifest.license, 'MIT');
    assert.deepEqual(manifest.dependencies ?? {}, {}, 'installs with no registry');
  });

  const script = (key: string, baseUrl: string) => ({ POD_API_KEY: key, POD_BASE_URL: baseUrl });

  it('works from plain ESM JavaScript', async () => {
    writeFileSync(
      join(project, 'esm.mjs'),
      `import { Client, NotFoundError, ApiError, VERSION } from 'pod-partner-sdk';
const client = new Client({ apiKey: process.env.POD_API_KEY, baseUrl: process.env.POD_BASE_URL });
const { message } = await client.auth.validate();
const err = await client.orders.get('Order_00000000000000000000000000').catch((e) => e);
const first = await client.products.list({ limit: 2 }).firstPage();
console.log(JSON.stringify({ message, notFound: err instanceof NotFoundError && err instanceof ApiError, status: err.status, products: first.products.length, VERSION }));
`,
    );
    const out = JSON.parse(await ok(project, process.execPath, ['esm.mjs'], script(server.t.key, server.baseUrl)));
    assert.match(out.message, /valid/);
    assert.deepEqual([out.notFound, out.status, out.products, out.VERSION], [true, 404, 2, VERSION]);
  });

  it('works from CommonJS', async () => {
    writeFileSync(
      join(project, 'cjs.cjs'),
      `const { Client, AuthenticationError, signWebhook, verifyWebhook } = require('pod-partner-sdk');
(async () => {
  const bad = new Client({ apiKey: 'sk_test_wrong', baseUrl: process.env.POD_BASE_URL });
  const err = await bad.auth.validate().catch((e) => e);
  const secret = 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');
  const body = JSON.stringify({ type: 'ping', timestamp: new Date().toISOString(), data: {} });
  const now = new Date();
  const headers = { 'webhook-id': 'Event_1', 'webhook-timestamp': String(Math.floor(now / 1000)), 'webhook-signature': signWebhook(secret, 'Event_1', now, body) };
  console.log(JSON.stringify({ auth: err instanceof AuthenticationError, code: err.code, type: verifyWebhook(body, headers, secret).type }));
})();
`,
    );
    const out = JSON.parse(await ok(project, process.execPath, ['cjs.cjs'], script(server.t.key, server.baseUrl)));
    assert.deepEqual(out, { auth: true, code: 'unauthorized', type: 'ping' });
  });

  it('type-checks and runs from TypeScript with the settings `tsc --init` writes', async () => {
    await ok(project, process.execPath, [TSC, '--init']);
    writeFileSync(
      join(project, 'index.ts'),
      `import { Client, RateLimitError, ValidationError, type GetOrderResponse, type ValidationDetail } from 'pod-partner-sdk';

declare const process: { env: Record<string, string | undefined> };
const client = new Client({ apiKey: process.env['POD_API_KEY'] ?? '', baseUrl: process.env['POD_BASE_URL'] ?? '', timeoutMs: 10_000 });
const status = (o: GetOrderResponse): string => o.order.status.code;
// @ts-expect-error an undocumented field is a type error, as it is a 400 on the server
client.orders.quote({ quote: {}, colour: 'red' }).catch(() => undefined);
try {
  await client.orders.create({ order: { storeReference: 'Store_x', shippingKind: 'dropship', orderlines: [] } }, { maxRetries: 0 });
} catch (err) {
  if (err instanceof ValidationError) {
    const fields: ValidationDetail[] = err.details;
    console.log(JSON.stringify({ validation: true, fields: fields.map((d) => d.field), typed: typeof status }));
  } else if (err instanceof RateLimitError) console.log(err.retryAfter);
  else throw err;
}
`,
    );
    // No @types/node in the project: the SDK's declarations must not need it.
    await ok(project, process.execPath, [TSC, '-p', '.']);
    await ok(project, process.execPath, [TSC, '-p', '.', '--skipLibCheck', 'false', '--noEmit']);
    const out = JSON.parse(await ok(project, process.execPath, ['index.js'], script(server.t.key, server.baseUrl)));
    assert.equal(out.validation, true);
    assert.ok(out.fields.includes('body.order.orderlines'), out.fields.join(', '));
  });

  it('every method carries JSDoc from the OpenAPI summaries', () => {
    const dts = readFileSync(join(project, 'node_modules', 'pod-partner-sdk', 'dist', 'esm', 'generated.d.ts'), 'utf8');
    const resources = dts.slice(dts.indexOf('export interface Resources'));
    const members = [...resources.matchAll(/^ {8}(\w+): "(\w+)";$/gm)];
    assert.ok(members.length > 50, `${members.length} methods`);
    for (const m of members) {
      const before = resources.slice(0, m.index).trimEnd();
      assert.ok(before.endsWith('*/'), `${m[1]} (${m[2]}) has a doc comment`);
      assert.match(before.slice(before.lastIndexOf('/**')), new RegExp(`operation \`${m[2]}\``));
    }
  });

  it('ships the podpartner command: help with an example, a bad key as one line and exit 1', async () => {
    const bin = join(project, 'node_modules', '.bin', 'podpartner');
    assert.match(await ok(project, bin, ['--help']), /listen/);
    assert.match(await ok(project, bin, ['orders', 'list', '--help']), /Example:\n {2}podpartner orders list/);
    const res = await run(project, bin, ['whoami'], script('sk_test_wrong', server.baseUrl));
    assert.equal(res.status, 1);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    assert.match(res.stderr, /^error: the API refused the key/);
  });

  it('leaves no build output in the package folder beyond dist/', () => {
    assert.deepEqual(readdirSync(SDK).sort(), [
      'LICENSE',
      'README.md',
      'dist',
      'package.json',
      'src',
      'tsconfig.build.json',
      'tsconfig.cjs.json',
    ]);
  });
});
