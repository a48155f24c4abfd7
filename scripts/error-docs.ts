/**
 * The tables of docs/errors.md, from the error-code registry (src/platform/errors.ts, by area in src/platform/errors/). The prose
 * around them stays as written; each `<!-- error-codes: GROUP -->` … `<!-- /error-codes -->` block
 * is replaced by the group's table. `npm run docs:errors` writes the file;
 * test/platform/error-docs.test.ts fails when it is out of step.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS, ERROR_GROUPS, type ErrorCode, type ErrorGroup } from '../src/platform/errors.ts';

export const ERRORS_DOC = join(import.meta.dirname, '..', 'docs', 'errors.md');

const BLOCK = /<!-- error-codes: (\w+) -->\n(?:.*\n)*?<!-- \/error-codes -->/g;

/** The rows of one group: codes declared in it, then codes that are also listed there. */
function table(group: ErrorGroup): string {
  const rows: string[] = [];
  const also: string[] = [];
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    const e = ERRORS[code] as {
      status: number;
      group: ErrorGroup;
      description: string;
      also?: Array<{ group: ErrorGroup; description: string }>;
    };
    if (e.group === group) rows.push(`| \`${code}\` | ${e.status} | ${e.description} |`);
    for (const a of e.also ?? []) if (a.group === group) also.push(`| \`${code}\` | ${e.status} | ${a.description} |`);
  }
  const head = group === 'operator' ? '| code | status | where |' : '| code | status | when |';
  return [head, '|---|---|---|', ...rows, ...also].join('\n');
}

/** docs/errors.md as the registry says it should read. */
export function renderErrorDocs(current: string): string {
  return current.replace(BLOCK, (_all, group: string) => {
    if (!(group in ERROR_GROUPS)) throw new Error(`docs/errors.md names an unknown error group "${group}"`);
    return `<!-- error-codes: ${group} -->\n${table(group as ErrorGroup)}\n<!-- /error-codes -->`;
  });
}

/** The groups the document has a block for. */
export function documentedGroups(text: string): string[] {
  return [...text.matchAll(BLOCK)].map((m) => m[1]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const before = readFileSync(ERRORS_DOC, 'utf8');
  const after = renderErrorDocs(before);
  writeFileSync(ERRORS_DOC, after);
  console.log(before === after ? 'docs/errors.md was up to date' : 'docs/errors.md rewritten from the registry');
}
