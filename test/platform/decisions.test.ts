import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const DIR = join(import.meta.dirname, '..', '..', 'docs', 'decisions');
const files = readdirSync(DIR).filter((f) => /^\d{4}-[a-z0-9-]+\.md$/.test(f));
const index = readFileSync(join(DIR, 'README.md'), 'utf8');

describe('decision records', () => {
  it('each has a numbered title, a date, a status and the three sections', () => {
    for (const f of files) {
      const text = readFileSync(join(DIR, f), 'utf8');
      assert.match(text, new RegExp(`^# ${f.slice(0, 4)}\\. \\S`), `${f}: title "# ${f.slice(0, 4)}. …"`);
      assert.match(text, /^- Date: \d{4}-\d{2}-\d{2}$/m, `${f}: "- Date: YYYY-MM-DD"`);
      assert.match(text, /^- Status: (accepted|superseded by \[\d{4}\]\(\d{4}-[a-z0-9-]+\.md\))$/m, `${f}: status`);
      for (const section of ['Context', 'Decision', 'Consequences'])
        assert.match(text, new RegExp(`^## ${section}$`, 'm'), `${f}: "## ${section}"`);
    }
  });

  it('the index lists every decision once, under a topic, with the status the file gives', () => {
    const numbers = files.map((f) => f.slice(0, 4));
    assert.equal(new Set(numbers).size, numbers.length, 'no two decisions share a number');
    for (const f of files) {
      const rows = index.split('\n').filter((line) => line.includes(`](${f})`));
      assert.equal(rows.length, 1, `${f} is listed once in docs/decisions/README.md`);
      const status = readFileSync(join(DIR, f), 'utf8').match(/^- Status: (accepted|superseded by \[(\d{4})\])/m);
      const superseded = status?.[2];
      if (superseded) assert.match(rows[0], new RegExp(`superseded by ${superseded}`), `${f}: index says superseded`);
      else assert.match(rows[0], /\| accepted \|$/, `${f}: index says accepted`);
    }
    for (const link of index.matchAll(/\]\((\d{4}-[a-z0-9-]+\.md)\)/g))
      assert.ok(files.includes(link[1]), `the index links ${link[1]}, which exists`);
  });

  it('every superseding decision exists', () => {
    for (const f of files) {
      const m = readFileSync(join(DIR, f), 'utf8').match(/^- Status: superseded by \[\d{4}\]\((.+?)\)/m);
      if (m) assert.ok(files.includes(m[1]), `${f} is superseded by ${m[1]}, which exists`);
    }
  });
});
