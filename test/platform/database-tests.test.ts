import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { CHILD_WITHOUT_DATABASE, databaseTests, testFiles } from '../../scripts/database-tests.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const WORK = join(ROOT, 'test-artifacts', 'database-tests');

/** Writes small test files whose imports show one rule each; returns their paths as the script names them. */
function samples(files: Record<string, string>): Record<string, string> {
  mkdirSync(WORK, { recursive: true });
  return Object.fromEntries(
    Object.entries(files).map(([name, code]) => {
      const file = join(WORK, `${name}.test.ts`);
      writeFileSync(file, code);
      return [name, relative(ROOT, file)];
    }),
  );
}

describe('the PostgreSQL + Redis pass (npm run test:databases)', () => {
  after(() => rmSync(WORK, { recursive: true, force: true }));
  // One look at the whole suite (esbuild reads every file) serves the first two tests.
  let suite: Promise<Map<string, string>> | undefined;
  const wholeSuite = () => {
    suite ??= databaseTests();
    return suite;
  };

  it('picks every file that opens a test database or a test app, and the Redis tests', async () => {
    const picked = await wholeSuite();
    const users = testFiles().filter((f) => /support\/(app|db)\.ts'/.test(readFileSync(join(ROOT, f), 'utf8')));
    assert.ok(users.length > 50, `${users.length} files use the test app or database`);
    assert.deepEqual(
      users.filter((f) => !picked.has(f)),
      [],
    );
    assert.match(picked.get('test/platform/ratelimit.test.ts') ?? '', /REDIS_URL/);
    assert.match(picked.get('test/sdk/cli.test.ts') ?? '', /child processes/);
  });

  it('leaves out pure rules, pixels and PDFs, and says why it picks the others', async () => {
    const picked = await wholeSuite();
    for (const pure of [
      'test/platform/ids.test.ts',
      'test/business/vat-rules.test.ts',
      'test/production/documents.test.ts',
      'test/platform/packaging.test.ts', // its compiled server gets an environment without the services
    ])
      assert.equal(picked.has(pure), false, pure);
    assert.ok(picked.size < testFiles().length, `${picked.size} of ${testFiles().length}`);
  });

  it('follows imports through helpers, ignores type-only imports and known tools, counts child processes', async () => {
    const s = samples({
      typeOnly: `import type { Db } from '../../test/support/db.ts';\nexport const x: Db | null = null;\n`,
      unusedValue: `import { cloneTestDb } from '../../test/support/db.ts';\nexport type T = typeof cloneTestDb;\n`,
      viaHelper: `import { createTestApp } from '../../test/support/app.ts';\nawait createTestApp();\n`,
      envRead: `export const url = process.env.REDIS_URL;\n`,
      wholeConfig: `import { loadConfig } from '../../src/config.ts';\nexport const c = loadConfig();\n`,
      ownConfig: `import { loadConfig } from '../../src/config.ts';\nexport const c = loadConfig({ APP_ENV: 'test' });\n`,
      spawns: `import { spawnSync } from 'node:child_process';\nspawnSync(process.execPath, ['-v']);\n`,
      pdfTool: `import { pdfText } from '../../test/support/pdf-tools.ts';\nexport const t = pdfText;\n`,
    });
    const picked = await databaseTests(Object.values(s));
    assert.deepEqual(
      Object.entries(s)
        .filter(([, f]) => picked.has(f))
        .map(([name]) => name)
        .sort(),
      ['envRead', 'spawns', 'viaHelper', 'wholeConfig'],
    );
    assert.match(picked.get(s.viaHelper) ?? '', /^test\/support\/db\.ts reads TEST_DATABASE_URL/);
  });

  it('lists only modules that exist and do start child processes as tools without a database', () => {
    for (const path of Object.keys(CHILD_WITHOUT_DATABASE))
      assert.match(readFileSync(join(ROOT, path), 'utf8'), /from 'node:child_process'/, path);
  });
});
