/** Reads against the baselines of this run: the HTTP and database ceilings, then keyset pages. */
import { Cursors } from '../../src/platform/http/pagination.ts';
import { BIG, type Bench, type Row, want } from '../harness.ts';
import type { Demo } from './demo.ts';

/** The bare Fastify server's two ceilings, measured first and always (every ratio needs them). */
export async function baselines(b: Bench): Promise<{ ceilingHttp: Row; ceilingDb: Row }> {
  const { baseBaseline, f, measure, warm } = b;
  await warm(baseBaseline, { path: '/const' });
  await warm(baseBaseline, { path: `/pk/${f.sampleOrder}` });
  const ceilingHttp = await measure('baseline: bare Fastify constant', { path: '/const' }, {}, undefined, baseBaseline);
  const ceilingDb = await measure(
    'baseline: bare Fastify + PK select',
    { path: `/pk/${f.sampleOrder}` },
    {},
    undefined,
    baseBaseline,
  );
  return { ceilingHttp, ceilingDb };
}

export async function readScenarios(b: Bench, d: Demo, ceilings: { ceilingHttp: Row; ceilingDb: Row }) {
  const { base, baseBaseline, f, H, api, measure, warm } = b;
  const { ceilingHttp, ceilingDb } = ceilings;
  if (want('GET /v2/products/{ref}', 'GET /v2/orders/{ref}')) {
    const productReq = { path: `/v2/products/${d.printable.reference}`, headers: H(f.demoKey) };
    const orderReq = { path: `/v2/orders/${d.demoOrder.reference}`, headers: H(f.small.key) };
    await warm(base, productReq);
    await warm(base, orderReq);
    const getProduct = await measure('GET /v2/products/{ref}', productReq);
    const getOrder = await measure('GET /v2/orders/{ref}', orderReq);
    // The database ceiling again right after: the better of the two is the one compared against.
    const ceilingDb2 = await measure(
      'baseline: bare Fastify + PK select (again)',
      { path: `/pk/${f.sampleOrder}` },
      {},
      undefined,
      baseBaseline,
    );
    const dbCeiling = Math.max(ceilingDb.rps, ceilingDb2.rps);
    for (const r of [getProduct, getOrder])
      r.ratio = `${((r.rps / dbCeiling) * 100).toFixed(0)}% of DB ceiling (target 70%)`;
    for (const r of [ceilingDb, ceilingDb2])
      r.ratio = `${((r.rps / ceilingHttp.rps) * 100).toFixed(0)}% of HTTP ceiling`;
    for (const r of [getProduct, getOrder]) r.note = `${((r.rps / ceilingHttp.rps) * 100).toFixed(0)}% of HTTP ceiling`;
  }

  // Keyset pages: the first page and one from the middle, with a cursor the list itself would issue
  // (scope 'orders', position = seq of the last order seen; see src/modules/orders/service.ts).
  if (want('GET /v2/orders page')) {
    const cursors = new Cursors(f.secretKey);
    const page = (key: string, seq?: number) => ({
      path: `/v2/orders?limit=50${seq === undefined ? '' : `&cursor=${encodeURIComponent(cursors.encode('orders', seq))}`}`,
      headers: H(key),
    });
    for (const o of [f.small, f.big]) {
      const check = await api('GET', page(o.key, o.middleSeq).path, o.key);
      if (check.status !== 200 || check.data.orders.length !== 50)
        throw new Error(
          `deep page cursor is not accepted: ${check.status} ${JSON.stringify(check.data).slice(0, 200)}`,
        );
    }
    const list1k = await measure('GET /v2/orders page of 50 (1,000 orders)', page(f.small.key));
    const deep1k = await measure('GET /v2/orders deep page (1,000 orders)', page(f.small.key, f.small.middleSeq));
    const listBig = await measure(`GET /v2/orders page of 50 (${BIG.toLocaleString('en')} orders)`, page(f.big.key));
    const deepBig = await measure(
      `GET /v2/orders deep page (${BIG.toLocaleString('en')} orders)`,
      page(f.big.key, f.big.middleSeq),
    );
    listBig.ratio = `p99 ${(listBig.p99 / Math.max(list1k.p99, 1)).toFixed(2)}x of 1,000 (target 1.5x)`;
    deepBig.ratio = `p99 ${(deepBig.p99 / Math.max(deep1k.p99, 1)).toFixed(2)}x of 1,000 (target 1.5x)`;
  }
}
