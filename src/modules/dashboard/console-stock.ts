import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { integer, required, text, value } from './forms.ts';
import { badge, field, fmtDate, form, html, table } from './html.ts';
import { page } from './layout.ts';
import type { Ctx, DashRouter, PageOptions } from './router.ts';

/** Operator console: receive and correct an item's stock with a reason, and read its stock ledger. */
export function consoleStockPages(r: DashRouter): void {
  const { s } = r;
  const itemOf = (req: FastifyRequest) => ((req.query ?? {}) as { item?: string }).item?.trim().slice(0, 200) ?? '';

  const stockPage = async (item: string, ctx: Ctx, opts: PageOptions) => {
    const search = html`<form method="get" class="filters card" aria-label="Find an item"><div class="field"><label for="f-item">Warehouse SKU or item reference</label><input id="f-item" name="item" value="${item}" required></div><button type="submit" class="btn secondary">Show</button></form>`;
    if (!item) return page(ctx.page, 'Stock', search, opts);
    let found: Awaited<ReturnType<typeof s.catalog.stockMovements>>;
    try {
      found = await s.catalog.stockMovements(item, { limit: 50 });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        return page(ctx.page, 'Stock', search, { ...opts, error: `No item ${item}` });
      throw err;
    }
    const it = found.item;
    const action = `/console/stock/${encodeURIComponent(it.reference)}`;
    return page(
      ctx.page,
      `Stock of ${it.sku}`,
      html`${search}<dl class="facts"><dt>Item</dt><dd><code>${it.reference}</code></dd><dt>Logical (available)</dt><dd>${it.logicalQuantity}</dd><dt>Physical (on the shelf)</dt><dd>${it.physicalQuantity}</dd></dl>
<section class="card"><h2>Receive goods</h2>${form(
        `${action}/receive`,
        ctx.page.csrf,
        html`${field({ label: 'Quantity', name: 'quantity', type: 'number', min: 1, required: true })}${field({ label: 'Reason', name: 'reason', value: 'goods received', required: true, maxlength: 500 })}<button type="submit" class="btn">Receive</button>`,
      )}</section>
<section class="card"><h2>Correct</h2>${form(
        `${action}/correct`,
        ctx.page.csrf,
        html`${field({ label: 'Change of the logical quantity', name: 'logicalDelta', type: 'number', help: 'e.g. -2' })}${field({ label: 'Change of the physical quantity', name: 'physicalDelta', type: 'number' })}${field({ label: 'Reason', name: 'reason', required: true, maxlength: 500 })}<button type="submit" class="btn">Correct</button>`,
      )}</section>
<h2>Stock ledger</h2>
${table(
  ['When', 'Movement', 'Logical', 'Physical', 'After (logical / physical)', 'Order or reason'],
  found.movements.map(
    (m) =>
      html`<tr><td>${fmtDate(m.created)}</td><td>${badge(m.kind)}</td><td>${m.logicalDelta}</td><td>${m.physicalDelta}</td><td>${m.logicalAfter} / ${m.physicalAfter}</td><td>${m.orderReference ?? m.reason ?? ''}</td></tr>`,
  ),
  { caption: 'Movements, newest first', empty: 'No movements yet.' },
)}`,
      opts,
    );
  };

  r.page('/console/stock', 'operator', async (req, ctx) => stockPage(itemOf(req), ctx, {}));
  const ref = (req: FastifyRequest) => (req.params as { ref: string }).ref;
  const back = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => stockPage(ref(req), ctx, opts);
  r.action(
    '/console/stock/:ref/receive',
    'operator',
    async (req) => {
      const quantity = integer(req.body, 'quantity', 'Quantity', { min: 1, max: 10_000_000, required: true })!;
      await s.catalog.receiveStock(ref(req), quantity, required(req.body, 'reason', 'Reason', 500));
      return { redirect: `/console/stock?item=${encodeURIComponent(ref(req))}`, notice: `Received ${quantity}` };
    },
    back,
  );
  r.action(
    '/console/stock/:ref/correct',
    'operator',
    async (req) => {
      const delta = (name: string, label: string) =>
        value(req.body, name)?.trim()
          ? integer(req.body, name, label, { min: -10_000_000, max: 10_000_000 })
          : undefined;
      await s.catalog.correctStock(ref(req), {
        logicalDelta: delta('logicalDelta', 'Change of the logical quantity'),
        physicalDelta: delta('physicalDelta', 'Change of the physical quantity'),
        reason: text(req.body, 'reason', 'Reason', { required: true, max: 500 })!,
      });
      return { redirect: `/console/stock?item=${encodeURIComponent(ref(req))}`, notice: 'Stock corrected' };
    },
    back,
  );
}
