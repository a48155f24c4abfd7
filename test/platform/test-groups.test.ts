import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { ALONE, cpuSeconds, groupFiles, testFiles, writeEntries } from '../../scripts/test-groups.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const WORK = join(ROOT, 'test-artifacts', 'test-groups-test');

describe('grouped test passes (scripts/test-groups.ts)', () => {
  after(() => rmSync(WORK, { recursive: true, force: true }));

  it('names in ALONE only test files that exist, each with its reason', () => {
    const files = new Set(testFiles());
    assert.deepEqual(
      Object.keys(ALONE).filter((f) => !files.has(f)),
      [],
    );
    for (const [f, why] of Object.entries(ALONE)) assert.ok(why.length > 10, `${f}: ${why}`);
  });

  it('names in the CPU table only test files that exist', () => {
    const files = new Set(testFiles());
    assert.deepEqual(
      Object.keys(cpuSeconds()).filter((f) => !files.has(f)),
      [],
    );
  });

  it('runs every file once: ALONE files in a process each, the others grouped in path order', () => {
    const files = testFiles();
    const units = groupFiles(files);
    assert.deepEqual(units.flatMap((u) => u.files).sort(), files);
    for (const u of units) {
      if (u.files.some((f) => f in ALONE)) assert.equal(u.files.length, 1, u.files.join(', '));
      assert.deepEqual(u.files, [...u.files].sort());
      assert.ok(u.files.length <= 12, `${u.files.length} files in one process`);
    }
    assert.ok(units.length < files.length / 3, `${units.length} processes for ${files.length} files`);
    const costs = units.map((u) => u.cost);
    assert.deepEqual(
      costs,
      [...costs].sort((a, b) => b - a),
      'costliest first',
    );
  });

  it("writes a group's entry that imports its files in order, or in reverse", () => {
    const units = [
      { files: ['test/a.test.ts', 'test/b.test.ts'], cost: 1 },
      { files: ['test/c.test.ts'], cost: 1 },
    ];
    const [entry, lone] = writeEntries(units, join(WORK, 'order'));
    assert.equal(lone, 'test/c.test.ts');
    const imports = (path: string) =>
      [...readFileSync(join(ROOT, path), 'utf8').matchAll(/^import "[^"]*\/(\w)\.test\.ts"/gm)].map((m) => m[1]);
    assert.deepEqual(imports(entry), ['a', 'b']);
    const [reversed] = writeEntries(units, join(WORK, 'reverse'), { reverse: true });
    assert.deepEqual(imports(reversed), ['b', 'a']);
  });

  it('reports a failure in a group under the file it comes from, and the CPU of the group', () => {
    const dir = join(WORK, 'run');
    mkdirSync(dir, { recursive: true });
    const test = (name: string, body: string) => {
      const file = join(dir, `${name}.test.mjs`);
      writeFileSync(
        file,
        `import { describe, it } from 'node:test';\ndescribe('${name}', () => { it('${name} test', () => { ${body} }); });\n`,
      );
      return relative(ROOT, file);
    };
    const files = [test('passes', ''), test('fails', "throw new Error('from fails');")];
    const [entry] = writeEntries([{ files, cost: 1 }], dir);
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT; // a runner of its own, not this file's child
    delete env.POD_TEST_CPU_LOG;
    const res = spawnSync(
      process.execPath,
      ['--import', './scripts/test-cpu.mjs', '--test', '--test-reporter=./scripts/test-reporter.mjs', entry],
      { cwd: ROOT, env, encoding: 'utf8' },
    );
    assert.equal(res.status, 1, res.stderr);
    assert.match(res.stdout, new RegExp(`not ok \\d+ - fails\\n[^]*?location: '${join(ROOT, files[1])}:`));
    assert.match(res.stdout, new RegExp(`${entry} \\(2 files; failed: ${files[1]}\\)`));
    assert.ok(existsSync(join(ROOT, entry)));
  });
});
