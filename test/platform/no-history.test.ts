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
  // An ordinal before the word for a stretch of work (spelled out or in digits), not a sign-in.
  /\b(\w+-)?(first|second|third|\w+th|\d+(st|nd|rd|th)) sessions?\b/i,
  // A change told as a change: what the code is, not what it was before.
  /\b(is|are) now\b/i,
  /\bnow (uses?|runs?|takes?|holds?|goes|writes?|reads?|answers?|gives?|keeps?|has|have)\b/i,
  /\b(previously|formerly|originally|anymore|until recently|used to be|nowadays)\b/i,
  /\b(earlier|former) (versions?|releases?|builds?)\b/i,
  /\bthe older \w+ (page|form|endpoint|field|name)\b/i,
  /\binstead of the old\b|\bthe old (code|way|approach|implementation)\b/i,
  /\b(was|were) (changed|renamed|moved|switched|replaced|rewritten|split) (to|from|into|by)\b/i,
  /\brenamed (from|to)\b|\bwe (changed|moved|switched|replaced|renamed|fixed|removed|added)\b/i,
  /\bbug (was|is|got) fixed\b|\bfixed (a|the) bug\b|\bthe bug was\b|\bafter the split\b/i,
  /\b(went|dropped|fell|rose|climbed) from [~\d]/i,
  // A figure told as a change: a cost that went from one number to another.
  /\btook [\w' ]{0,40}\bfrom ~?\d[\d.,]* to ~?\d/i,
  // A guarantee measured against earlier code instead of stated.
  /\b(rests|stays|remains|lies) where (it|they) did\b/i,
  /\bas it was \w+ then\b|\bbefore (a|the) [\w' ]{3,40} (left out|was changed|changed)\b/i,
  /\((was|formerly|previously) [^)]*\)/i,
  /(^|\s)new: /i,
  /\b(changed|added|removed|fixed|introduced) (on|in) 20\d\d\b/i,
  // A fix told as an event: "before the fix", "with the kernel's closure fix".
  /\b(before|after|with|since|until) (the|this|that) ([\w']+ ){0,3}fix\b/i,
  // What something stopped doing (product text keeps "no longer available", "no longer decodes").
  /\bno longer (prints?|decompress(es)?|crash(es)?|leaks?|hangs?|copies|5\d\ds?)\b/i,
  /\bnow (a|an) (platform|module|shared|separate|single|function|class|file|part)\b/i,
  /\bnow (bounds?|covers?|limits?|caps?|counts?|stores?|draws?|prints?|refuses?|accepts?|includes?|lives?)\b/i,
  /\b(it|they|we) did before\b|\bthan before\b/i,
  /\bthe old (behaviou?r|kind|[\w-]+ kind|version|rule)\b/i,
  /\bbefore (the|this) (check|rule|change|decision|switch) (still|was|landed|went)\b/i,
  /\b(was|were) already installed\b/i,
  // A changelog's headings.
  /^#+\s+(Fixed|Changed|Removed|Added)\b/,
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
