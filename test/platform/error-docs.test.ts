import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ERRORS_DOC, documentedGroups, renderErrorDocs } from '../../scripts/error-docs.ts';
import {
  ApiError,
  ERRORS,
  ERROR_GROUPS,
  type ErrorCode,
  conflict,
  statusDescription,
} from '../../src/platform/errors.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('the error-code registry', () => {
  it('and docs/errors.md agree (run `npm run docs:errors` after changing the registry)', () => {
    const doc = readFileSync(ERRORS_DOC, 'utf8');
    assert.equal(doc, renderErrorDocs(doc));
    assert.deepEqual(documentedGroups(doc).sort(), Object.keys(ERROR_GROUPS).sort(), 'one table per group');
  });

  it('lists every code the docs name and no code that the code never raises', () => {
    const doc = readFileSync(ERRORS_DOC, 'utf8');
    const code = sources(SRC)
      .filter((f) => !f.endsWith(join('platform', 'errors.ts')))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    for (const c of Object.keys(ERRORS)) {
      assert.ok(doc.includes(`| \`${c}\` |`), `docs/errors.md has a row for ${c}`);
      assert.ok(code.includes(`'${c}'`), `${c} is raised somewhere under src/ (else remove it from the registry)`);
    }
  });

  it('gives each error its status from the code', () => {
    assert.equal(new ApiError('custom_identifier_in_use', 'x').status, 409);
    assert.equal(conflict('claim_not_pending', 'x').status, 409);
    assert.equal(new ApiError('invalid_request', 'x', { status: 408 }).status, 408, 'a status the framework decided');
    // @ts-expect-error a misspelt code does not compile
    assert.throws(() => new ApiError('custom_identifer_in_use', 'x'));
    // @ts-expect-error conflict() takes 409 codes only
    conflict('invalid_request', 'x');
  });

  describe('in the OpenAPI document', () => {
    let t: TestApp;
    let doc: any;
    before(async () => {
      t = await createTestApp();
      doc = (await call(t, 'GET', '/v2/openapi.json', { key: null })).data;
    });
    after(() => t.close());

    it('describes every error response with the status and its codes from the registry', () => {
      let checked = 0;
      for (const item of Object.values<any>(doc.paths)) {
        for (const op of Object.values<any>(item)) {
          for (const [status, res] of Object.entries<any>(op.responses ?? {})) {
            if (Number(status) < 400) continue;
            assert.equal(res.description, statusDescription(Number(status)), `${op.operationId} ${status}`);
            checked++;
          }
        }
      }
      assert.ok(checked > 100, `${checked} error responses checked`);
      const conflictCodes = (Object.keys(ERRORS) as ErrorCode[]).filter(
        (c) => ERRORS[c].status === 409 && ERRORS[c].group === 'orders',
      );
      for (const c of conflictCodes) assert.match(statusDescription(409), new RegExp(`\`${c}\``));
    });
  });
});
