import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { products } from '../orders/helpers.ts';
import { podctlSuite } from '../support/podctl.ts';

describe('podctl: stock, ledger, integrators', () => {
  const server = podctlSuite('podctl-');

  it('receives and corrects stock with a reason and reads the ledger back', async () => {
    const [{ sku }] = await server.t.db.query<{ sku: string }>(
      'SELECT i.sku FROM items i JOIN products p ON p.item_id = i.id WHERE p.id = $1',
      [products(server.t).protector],
    );
    const rec = await server.run('stock', 'receive', sku, '20', '--reason', 'delivery 4711', '--json');
    assert.equal(rec.code, 0, rec.stderr);
    const before = JSON.parse(rec.stdout).item;
    const cor = await server.run(
      'stock',
      'correct',
      sku,
      '--physical',
      '-1',
      '--logical',
      '-1',
      '--reason',
      'one cracked',
    );
    assert.equal(cor.code, 0, cor.stderr);
    const noReason = await server.run('stock', 'correct', sku, '--physical', '-1');
    assert.notEqual(noReason.code, 0);
    const bad = await server.run('stock', 'receive', sku, 'lots');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /whole number/);
    const ledger = await server.run('stock', 'ledger', sku, '--limit', '2', '--json');
    assert.equal(ledger.code, 0, ledger.stderr);
    const m = JSON.parse(ledger.stdout).movements;
    assert.deepEqual(
      m.map((x: any) => [x.kind, x.reason, x.physicalAfter]),
      [
        ['correct', 'one cracked', before.physicalQuantity - 1],
        ['receive', 'delivery 4711', before.physicalQuantity],
      ],
    );
  });

  it('records a payment and shows the ledger; registers an integrator and issues a key through it', async () => {
    const [{ account_id }] = await server.t.db.query<{ account_id: string }>(
      "SELECT account_id FROM stores WHERE code = 'DEMO1'",
    );
    const pay = await server.run('ledger', 'payment', account_id, '5000', '--note', 'bank transfer', '--json');
    assert.equal(pay.code, 0, pay.stderr);
    const show = await server.run('ledger', 'show', account_id, '--json');
    assert.equal(show.code, 0, show.stderr);
    assert.equal(JSON.parse(show.stdout).entries[0].kind, 'payment');
    const created = await server.run('integrators', 'create', '--code', 'CLIAPP', '--name', 'CLI App', '--json');
    assert.equal(created.code, 0, created.stderr);
    const key = await server.run(
      'keys',
      'create',
      'DEMO1',
      '--name',
      'via cli app',
      '--integrator',
      'CLIAPP',
      '--json',
    );
    assert.equal(key.code, 0, key.stderr);
    assert.equal(JSON.parse(key.stdout).apiKey.integratorReference, JSON.parse(created.stdout).integrator.reference);
  });
});
