/**
 * The README's configuration table, from the list of variables in src/config/variables.ts. The prose around
 * it stays as written; the `<!-- config-variables -->` … `<!-- /config-variables -->` block is
 * replaced by the table. `npm run docs:config` writes the file; test/platform/config.test.ts fails
 * when it is out of step.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_VARIABLES } from '../src/config.ts';

export const README = join(import.meta.dirname, '..', 'README.md');

const BLOCK = /<!-- config-variables -->\n(?:.*\n)*?<!-- \/config-variables -->/;

/** A table cell: a `|` would end the cell, so it is escaped. */
const cell = (text: string) => text.replaceAll('|', '\\|');

/** The table, one row per variable in the order of the list. */
export function configTable(): string {
  const rows = CONFIG_VARIABLES.map((v) => `| \`${v.name}\` | ${cell(v.default)} | ${cell(v.description)} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** README.md as the list says it should read; throws when the README has no block for the table. */
export function renderConfigDocs(current: string): string {
  if (!BLOCK.test(current)) throw new Error('README.md has no <!-- config-variables --> block');
  return current.replace(BLOCK, `<!-- config-variables -->\n${configTable()}\n<!-- /config-variables -->`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const before = readFileSync(README, 'utf8');
  const after = renderConfigDocs(before);
  writeFileSync(README, after);
  console.log(
    before === after
      ? 'README.md was up to date'
      : "README.md's configuration table rewritten from src/config/variables.ts",
  );
}
