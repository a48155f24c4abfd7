import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const MARK = '--- /docs requested';

/** A module hook that writes every URL the process resolves to a file, before the import goes on. */
const HOOK = `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(file, result.url + '\\n');
  return result;
}`;

/** A fresh process that starts the app (local blobs), then opens /docs. */
const CHILD = `import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
const file = process.env.LOADED_FILE;
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}), { data: { file } });
const { createTestApp } = await import(${JSON.stringify(join(ROOT, 'test', 'support', 'app.ts'))});
const t = await createTestApp();
appendFileSync(file, ${JSON.stringify(`${MARK}\n`)});
const res = await t.app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
if (res.statusCode !== 200) throw new Error('/docs/js/scalar.js answered ' + res.statusCode);
await t.close();`;

// Both are tens of MB in every server that loads them, and only some servers use them.
describe('what a started server has loaded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pod-startup-imports-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('loads the API reference UI on the first /docs request and the S3 SDK only for BLOB_STORE=s3', async () => {
    const file = join(dir, 'loaded.txt');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
      cwd: ROOT,
      env: { ...process.env, LOADED_FILE: file },
    });
    const [atStart, afterDocs] = readFileSync(file, 'utf8').split(MARK);
    const loaded = (text: string, pkg: string) => text.split('\n').some((url) => url.includes(`/node_modules/${pkg}/`));

    assert.ok(loaded(atStart, 'fastify'), 'the hook records the packages the app loads');
    assert.ok(!loaded(atStart, '@scalar/fastify-api-reference'), 'the reference UI is not loaded at start');
    assert.ok(!loaded(atStart, '@aws-sdk/client-s3'), 'the S3 SDK is not loaded with local blobs');
    assert.ok(!loaded(atStart, 'ioredis'), 'the Redis client is not loaded without REDIS_URL');
    // PDF building (labels, slips, print files, invoices) happens in jobs and downloads, not at start.
    assert.ok(!loaded(atStart, 'pdfkit'), 'pdfkit is not loaded at start');
    assert.ok(!loaded(atStart, 'bwip-js'), 'the barcode writer is not loaded at start');
    assert.ok(loaded(afterDocs, '@scalar/fastify-api-reference'), 'the first /docs request loads it');
  });
});
