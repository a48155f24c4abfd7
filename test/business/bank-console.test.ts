import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OPERATOR_USER, csrfOf, multipart, signedIn, textOf } from '../dashboard/helpers.ts';
import { podctlSuite } from '../support/podctl.ts';
import { ISO_EXAMPLE, dutchStatement } from './bank-statements.ts';

describe('bank payments in the console and podctl', () => {
  const server = podctlSuite('podctl-bank-', { env: { APP_ENV: 'production' } });

  it('uploads a statement, lists what waits and assigns it to an account', async () => {
    const op = await signedIn(server.t, OPERATOR_USER, 'console');
    const pageRes = await op.get('/console/billing/bank');
    assert.equal(pageRes.statusCode, 200, pageRes.body);
    const acc = (
      await server.t.db.query<{ account_id: string }>("SELECT account_id FROM stores WHERE code = 'DEMO1'")
    )[0].account_id;
    const xml = dutchStatement('CONSOLE-1', [{ ref: 'C1', cents: 4_321, remittance: 'thanks for the cases' }]);
    const form = multipart(
      { _csrf: csrfOf(pageRes.body)! },
      { name: 'statement', filename: 'statement.xml', contentType: 'application/xml', data: Buffer.from(xml) },
    );
    const up = await op.request('POST', '/console/billing/bank/import', form);
    assert.equal(up.statusCode, 303, up.body);
    const shown = textOf((await op.get('/console/billing/bank')).body);
    assert.match(shown, /1 payment\(s\) imported \(0 matched, 1 waiting\)/);
    assert.match(shown, /thanks for the cases/);
    const [p] = await server.t.db.query<{ id: string }>("SELECT id FROM bank_payments WHERE entry_reference = 'C1'");
    const bad = await op.submit(
      `/console/billing/bank/${p.id}/assign`,
      { target: 'Account_0123456789abcdefghjkmnpqrs' },
      '/console/billing/bank',
    );
    assert.equal(bad.statusCode, 404);
    const done = await op.submit(`/console/billing/bank/${p.id}/assign`, { target: acc }, '/console/billing/bank');
    assert.equal(done.statusCode, 303, done.body);
    const [row] = await server.t.db.query<{ status: string; decided_by: string }>(
      'SELECT status, decided_by FROM bank_payments WHERE id = $1',
      [p.id],
    );
    assert.deepEqual([row.status, row.decided_by], ['assigned', OPERATOR_USER.email]);
    // A file that is no statement shows the reason on the page.
    const page2 = await op.get('/console/billing/bank');
    const junk = multipart(
      { _csrf: csrfOf(page2.body)! },
      { name: 'statement', filename: 'x.xml', contentType: 'application/xml', data: Buffer.from('hello') },
    );
    const refused = await op.request('POST', '/console/billing/bank/import', junk);
    assert.equal(refused.statusCode, 400);
    assert.match(textOf(refused.body), /not well-formed XML|not an ISO 20022/);
  });

  it('podctl imports a statement once, lists the unmatched payments and dismisses one', async () => {
    const file = join(server.dir, 'iso.xml');
    writeFileSync(file, ISO_EXAMPLE);
    const first = await server.run('bank', 'import', file, '--json');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(JSON.parse(first.stdout).unmatched, 2);
    const again = await server.run('bank', 'import', file, '--json');
    assert.equal(JSON.parse(again.stdout).repeated, 2);
    const list = await server.run('bank', 'payments', '--json');
    assert.equal(list.code, 0, list.stderr);
    const sek = JSON.parse(list.stdout).payments.find((p: any) => p.currency === 'SEK');
    const dismissed = await server.run('bank', 'dismiss', sek.reference, '--note', 'treasury transfer');
    assert.equal(dismissed.code, 0, dismissed.stderr);
    assert.match(dismissed.stdout, /dismissed/);
    const missing = await server.run('bank', 'import', join(server.dir, 'nope.xml'));
    assert.notEqual(missing.code, 0);
  });
});
