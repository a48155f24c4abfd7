import assert from 'node:assert/strict';
import { floorRepo } from '../../src/modules/production/floor-repo.ts';
import { createOrder, orderBody, products, uploadImage } from '../orders/helpers.ts';
import { type TestApp, operator } from '../support/app.ts';

/**
 * An order in production with `cases` clear cases and a screen protector; its units batched and,
 * unless `printed` is false, printed (as the print station leaves them).
 */
export async function unitsInProduction(
  t: TestApp,
  cases: number,
  printed = true,
  order: Record<string, unknown> = {},
) {
  const image = await uploadImage(t);
  const ref = await createOrder(
    t,
    orderBody(t, image, {
      orderlines: [
        { productReference: products(t).clear, imageReference: image, quantity: cases },
        { productReference: products(t).protector, quantity: 1 },
      ],
      ...order,
    }),
  );
  const res = await operator(t, 'POST', `/orders/${ref}/start-production`);
  assert.equal(res.statusCode, 204, res.body);
  const units = (await floorRepo.unitsOfOrders(t.db, [ref])).map((u) => u.id);
  assert.equal(units.length, cases, 'one unit per printed case; the protector comes off the shelf');
  const at = t.clock.now();
  await floorRepo.move(t.db, units, 'awaiting_batch', 'batched', { at });
  if (printed) await floorRepo.move(t.db, units, 'batched', 'printed', { at });
  return { ref, units };
}
