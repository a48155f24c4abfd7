import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const AREAS = [
  'src',
  'docs',
  'migrations',
  'test',
  'bench',
  'scripts',
  'examples',
  'packages/sdk/src',
  'packages/sdk/README.md',
  'README.md',
];

/** Phrases that narrate how the project was made instead of what it is: those belong in git. */
const HISTORY = [
  /\(issues? #?\d+\)/i,
  /\bissues? #?\d{1,3}\b/i,
  /\bsittings?\b/i,
  // "the ninth session", "twenty-first session", "(3rd session)": a stretch of work, not a sign-in.
  /\b(\w+-)?(first|second|third|\w+th|\d+(st|nd|rd|th)) sessions?\b/i,
];

describe('the project describes itself as it is', () => {
  it('no file cites issue numbers or narrates its making', () => {
    const files = execFileSync('git', ['ls-files', '--', ...AREAS], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.(ts|mts|mjs|js|md|sql|json|html|css)$/.test(f) && !f.startsWith('test/fixtures/'))
      .filter((f) => f !== 'test/platform/no-history.test.ts');
    assert.ok(files.length > 100, 'git lists the project files');
    const found: string[] = [];
    for (const f of files) {
      let text: string;
      try {
        text = readFileSync(join(ROOT, f), 'utf8');
      } catch {
        continue; // listed but deleted in the working tree
      }
      text.split('\n').forEach((line, i) => {
        if (HISTORY.some((re) => re.test(line))) found.push(`${f}:${i + 1}: ${line.trim().slice(0, 100)}`);
      });
    }
    assert.deepEqual(found, []);
  });
});
