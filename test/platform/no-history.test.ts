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

/**
 * The words these patterns look for, put together from pieces: this file is read by the same kind
 * of checker and must not spell them itself.
 */
const WORD = {
  tracker: ['is', 'sue'].join(''),
  stretch: ['sit', 'ting'].join(''),
  work: ['ses', 'sion'].join(''),
};
const ORDINAL = String.raw`(first|second|third|\w+th|\d+(st|nd|rd|th))`;

/** Phrases that narrate how the project was made instead of what it is: those belong in git. */
const CITED = [
  new RegExp(String.raw`\(${WORD.tracker}s? #?\d+\)`, 'i'),
  new RegExp(String.raw`\b${WORD.tracker}s? #?\d{1,3}\b`, 'i'),
  new RegExp(String.raw`\b${WORD.stretch}s?\b`, 'i'),
  // An ordinal before the word for a stretch of work (spelled out or in digits), not a sign-in.
  new RegExp(String.raw`\b(\w+-)?${ORDINAL} ${WORD.work}s?\b`, 'i'),
];
const HISTORY = [
  ...CITED,
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
  it('the assembled patterns catch the phrases they are built for, and leave a sign-in alone', () => {
    // Numbers and ordinals are assembled too, so that no line of this file reads as a citation.
    const n = (a: number, b: number) => String(a * b);
    const th = (stem: string, end: string) => [stem, end].join('');
    const caught = [
      `(${WORD.tracker} #${n(7, 7)})`,
      `(${WORD.tracker}s ${n(3, 4)})`,
      `see ${WORD.tracker} ${n(7, 7)}`,
      `${WORD.tracker}s #${n(7, 1)} and ${n(4, 2)}`,
      `in one ${WORD.stretch}`,
      `two ${WORD.stretch}s`,
      `the ${th('thi', 'rd')} ${WORD.work}`,
      `the ${n(3, 4)}${th('t', 'h')} ${WORD.work}s`,
      `a twenty-${th('fir', 'st')} ${WORD.work}`,
      `the ${n(1, 2)}${th('n', 'd')} ${WORD.work}`,
    ];
    for (const [i, example] of caught.entries()) {
      const re = CITED.find((r) => r.test(example));
      assert.ok(re, `example ${i} is caught`);
    }
    for (const [i, re] of CITED.entries()) {
      assert.ok(
        caught.some((example) => re.test(example)),
        `pattern ${i} catches an example`,
      );
    }
    for (const free of [
      `a dashboard ${WORD.work}`,
      `the ${WORD.work}'s organization`,
      `${WORD.tracker} ${n(617, 2)}`,
    ]) {
      assert.ok(!CITED.some((re) => re.test(free)), 'a product word is left alone');
    }
  });

  it('no file cites tracker numbers or narrates its making', () => {
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
