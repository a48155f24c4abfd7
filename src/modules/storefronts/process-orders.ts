import { ApiError } from '../../platform/errors.ts';
import { jobsAlong } from '../../platform/jobs/along.ts';
import type { JobRow } from '../../platform/jobs/queue.ts';
import type { StorefrontsDeps } from './deps.ts';
import { INBOX_JOB, type OrdersInMaking, inboxJobKey } from './inbound.ts';
import { type InboxRow, storefrontsRepo as repo } from './repo.ts';
import { addressOf, numericId, ourLines, shippingLevelOf } from './shopify/mapping.ts';
import type { ShopifyOrder } from './shopify/payloads.ts';

/** Orders made in one go: the order writer's batch. */
const ORDERS_PER_BATCH = 64;

/**
 * Stored `orders/create` webhooks made into orders of their store, through the same pipeline as
 * `POST /v2/orders`; an upstream order is taken once (one order per upstream order id).
 */
export function orderMaking(deps: StorefrontsDeps, making: OrdersInMaking) {
  const { db, clock } = deps;

  /**
   * One webhook's order; resolves to the delivery's outcome, throws for a passing fault. `taken`:
   * the store's orders already taken for the batch's upstream orders, looked up together.
   */
  async function orderCreated(row: InboxRow, taken?: Map<string, string>): Promise<string> {
    const o = row.payload as ShopifyOrder;
    const lines = ourLines(o.line_items);
    if (lines.length === 0) return 'ignored: no line of the order is one of ours';
    const upstreamId = numericId(o.admin_graphql_api_id);
    try {
      const input = {
        platform: 'shopify',
        upstreamId,
        upstreamName: o.name,
        minimalShippingLevel: shippingLevelOf(o.shipping_lines),
        address: addressOf(o.shipping_address ?? {}, o.email ?? o.contact_email),
        lines: lines.map((l) => ({
          productReference: l.productReference,
          ...(l.imageReference ? { imageReference: l.imageReference } : {}),
          quantity: l.quantity,
          ...(l.upstreamLineId ? { annotations: [{ key: 'shopifyLineItem', value: l.upstreamLineId }] } : {}),
        })),
      };
      const { reference, created } = await deps.orders.createUpstream(
        row.organization_id,
        row.store_id,
        input,
        taken ? (taken.get(upstreamId) ?? null) : undefined,
      );
      return created ? `order ${reference}` : `order ${reference} (already taken)`;
    } catch (err) {
      // The merchant's data, not a passing fault: recorded, and the fulfillment request is rejected.
      if (err instanceof ApiError && err.status < 500) return `refused: ${err.code}: ${err.message}`;
      throw err;
    }
  }

  /**
   * An order's webhook and the others of its store waiting with it, made together: their jobs are
   * taken along (platform/jobs/along.ts), their orders go to the order writer at once and are
   * written in its batches, and each delivery ends on its own. One that fails for a passing cause
   * (the database) fails only its own job, which retries it; one the merchant's data refuses is
   * recorded as such.
   */
  async function ordersTogether(row: InboxRow, job: JobRow): Promise<void> {
    making.set(row.store_id, (making.get(row.store_id) ?? 0) + 1);
    try {
      await takeAlong(row, job);
    } finally {
      const left = (making.get(row.store_id) ?? 1) - 1;
      if (left > 0) making.set(row.store_id, left);
      else making.delete(row.store_id);
    }
  }

  async function takeAlong(row: InboxRow, job: JobRow): Promise<void> {
    const others = await repo.waitingOrders(db, row.store_id, row.id, ORDERS_PER_BATCH - 1);
    const along = jobsAlong(db, clock);
    const taken = await along.claim(
      job,
      INBOX_JOB,
      others.map((o) => inboxJobKey(o.id)),
    );
    const byId = new Map(others.map((o) => [o.id, o]));
    const batch = [
      { row, job: null as JobRow | null },
      ...taken.map((j) => ({ row: byId.get(j.payload.inboxId as string)!, job: j as JobRow | null })),
    ];
    // Which of the batch's upstream orders are taken already: one query for the batch, not one each.
    // Should it fail, each order looks its own up, so that a fault ends each job on its own.
    const already = await deps.orders
      .takenUpstream(
        row.store_id,
        batch.map((b) => numericId((b.row.payload as ShopifyOrder).admin_graphql_api_id)),
      )
      .catch(() => undefined);
    const results = await Promise.allSettled(batch.map((b) => orderCreated(b.row, already)));
    const done: Array<{ id: string; outcome: string }> = [];
    for (const [i, r] of results.entries())
      if (r.status === 'fulfilled') done.push({ id: batch[i].row.id, outcome: r.value });
    await repo.markProcessedMany(db, done, clock.now());
    await along.settle(
      job,
      batch.flatMap((b, i) =>
        b.job
          ? [
              {
                job: b.job,
                error: results[i].status === 'rejected' ? (results[i].reason ?? new Error('failed')) : null,
              },
            ]
          : [],
      ),
    );
    if (results[0].status === 'rejected') throw results[0].reason;
  }

  return { orderCreated, ordersTogether };
}
