import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { productionRelease } from '../../src/modules/production/release.ts';
import type { ProductionDeps } from '../../src/modules/production/deps.ts';
import { createOrder, getOrder, orderBody, products, uploadImage } from '../orders/helpers.ts';
import { type TestApp, createTestApp } from '../support/app.ts';

const statusOf = async (t: TestApp, ref: string) => (await getOrder(t, ref)).status.code as string;

/** The item behind a product, its shelf set to `physical` blanks (a stock count; orders may still be placed). */
async function setShelf(t: TestApp, productRef: string, physical: number) {
  await t.db.query(
    `UPDATE items SET physical_quantity = $2, logical_quantity = 100
     WHERE id = (SELECT item_id FROM products WHERE id = $1)`,
    [productRef, physical],
  );
}

describe('release to production: holds judged again in the transaction that starts the order', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { PRODUCTION_RELEASE: 'immediate' } });
  });
  after(() => t.close());

  /**
   * A release whose start of `ref` first runs `meanwhile`: a change that lands after the sweep
   * judged the order and before the transaction that starts it.
   */
  const racing = (ref: string, meanwhile: () => Promise<void>) => {
    const orders: ProductionDeps['orders'] = t.s.orders;
    return productionRelease({
      db: t.db,
      clock: t.clock,
      config: t.s.config,
      orders: {
        ...orders,
        startProduction: async (orgId, r, guard) => {
          if (r === ref) await meanwhile();
          return orders.startProduction(orgId, r, guard);
        },
      },
    });
  };
  const leatherOrder = async (quantity: number) => {
    const image = await uploadImage(t);
    return createOrder(t, {
      order: {
        ...orderBody(t, image).order,
        orderlines: [{ productReference: products(t).leather, imageReference: image, quantity }],
      },
    });
  };

  it('keeps an order held when its blanks left the shelf between selection and launch', async () => {
    const p = products(t).leather;
    await setShelf(t, p, 100);
    const ref = await leatherOrder(2);
    const held = await inProductionNeed(t, p);
    await setShelf(t, p, held + 2);
    const out = await racing(ref, () => setShelf(t, p, held + 1)).minute();
    assert.ok(!out.released.includes(ref));
    assert.deepEqual(
      out.held.filter((h) => h.orderReference === ref),
      [
        {
          orderReference: ref,
          reason: 'out_of_stock',
          message: 'Blanks out of stock: DEMO-IP15-LTH needs 2, 1 free on the shelf',
        },
      ],
    );
    assert.equal(await statusOf(t, ref), 'pending', 'not charged, not in production');
    const charges = await t.db.query("SELECT 1 FROM ledger_entries WHERE order_id = $1 AND kind = 'charge'", [ref]);
    assert.equal(charges.length, 0);

    // The stock arrives: the next release starts it.
    await setShelf(t, p, held + 2);
    const next = await t.s.production.release.recheck();
    assert.deepEqual(next.released, [ref]);
    assert.equal(await statusOf(t, ref), 'in_production');
  });

  it('keeps an order held when another start took its blanks between selection and launch', async () => {
    const p = products(t).leather;
    await setShelf(t, p, 100);
    const ref = await leatherOrder(2);
    const rival = await leatherOrder(2);
    await setShelf(t, p, 2 + (await inProductionNeed(t, p)));
    // Both were judged against a shelf that holds two blanks; the rival starts first, in between.
    const out = await racing(ref, async () => {
      await t.s.orders.startProduction(null, rival);
    }).minute();
    assert.equal(await statusOf(t, rival), 'in_production');
    assert.equal(await statusOf(t, ref), 'pending');
    assert.deepEqual(
      out.held.filter((h) => h.orderReference === ref).map((h) => [h.reason, h.message]),
      [['out_of_stock', 'Blanks out of stock: DEMO-IP15-LTH needs 2, 0 free on the shelf']],
    );
    assert.ok(!out.released.includes(ref));
  });
});

/** Blanks of the product's item that orders in production still hold on the shelf. */
async function inProductionNeed(t: TestApp, productRef: string): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(
    `SELECT coalesce(sum(l.quantity - l.canceled_quantity - l.shipped_quantity), 0)::int AS n
       FROM orderlines l JOIN orders o ON o.id = l.order_id JOIN products p ON p.id = l.product_id
      WHERE o.status = 'in_production' AND p.item_id = (SELECT item_id FROM products WHERE id = $1)`,
    [productRef],
  );
  return row.n;
}
