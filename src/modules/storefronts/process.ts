import { ApiError } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import { jobsAlong } from '../../platform/jobs/along.ts';
import type { JobRow } from '../../platform/jobs/queue.ts';
import type { StorefrontsDeps } from './deps.ts';
import { INBOX_JOB, inboxJobKey } from './inbound.ts';
import type { Operations } from './operations.ts';
import { type InboxRow, storefrontsRepo as repo } from './repo.ts';
import { addressOf, numericId, ourLines, shippingLevelOf } from './shopify/mapping.ts';
import type { PrivacyRequest, ShopifyOrder } from './shopify/payloads.ts';

/** Orders made in one go: the order writer's batch. */
const ORDERS_PER_BATCH = 64;

/**
 * What each stored webhook does. Runs as a job: a failure that is not the payload's fault (the
 * database, a crash) is retried, and an order is never taken twice (one order per upstream order id).
 */
export function processing(deps: StorefrontsDeps, ops: Operations) {
  const { db, clock } = deps;

  async function orderCreated(row: InboxRow): Promise<string> {
    const o = row.payload as ShopifyOrder;
    const lines = ourLines(o.line_items);
    if (lines.length === 0) return 'ignored: no line of the order is one of ours';
    const upstreamId = numericId(o.admin_graphql_api_id);
    try {
      const { reference, created } = await deps.orders.createUpstream(row.organization_id, row.store_id, {
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
      });
      return created ? `order ${reference}` : `order ${reference} (already taken)`;
    } catch (err) {
      // The merchant's data, not a passing fault: recorded, and the fulfillment request is rejected.
      if (err instanceof ApiError && err.status < 500) return `refused: ${err.code}: ${err.message}`;
      throw err;
    }
  }

  async function privacy(row: InboxRow): Promise<string> {
    const req = row.payload as PrivacyRequest;
    let action: string;
    if (row.topic === 'customers/data_request') {
      const ids = (req.orders_requested ?? []).map(String);
      const held: string[] = [];
      for (const id of ids) {
        const order = await deps.orders.findUpstream(db, row.store_id, id);
        if (order) held.push(`${id} → ${order.reference}`);
      }
      action = held.length
        ? `holds the shipping address and lines of ${held.length} order(s): ${held.join(', ')}; sent to the merchant on request`
        : 'holds no data of this customer';
    } else {
      const ids = row.topic === 'shop/redact' ? null : (req.orders_to_redact ?? []).map(String);
      const { redacted, waiting } = await deps.orders.redactAddresses(row.store_id, ids, clock.now());
      action = `redacted ${redacted} address(es)`;
      if (waiting) {
        action += `; the rest is redacted on ${waiting.toISOString().slice(0, 10)}, when their claim window closes`;
        await ops.redactLater(row, waiting);
      }
    }
    await repo.logPrivacy(db, {
      id: newReference('PrivacyRequest'),
      store_id: row.store_id,
      organization_id: row.organization_id,
      topic: row.topic,
      request: req,
      action,
      at: clock.now(),
    });
    return action;
  }

  async function handle(row: InboxRow): Promise<string> {
    switch (row.topic) {
      case 'orders/create':
        return orderCreated(row);
      case 'app/uninstalled':
        return (await repo.disconnect(db, row.store_id, clock.now())) ? 'disconnected' : 'already disconnected';
      case 'customers/data_request':
      case 'customers/redact':
      case 'shop/redact':
        return privacy(row);
      case 'fulfillment_order_notification':
        await ops.enqueue(db, row.store_id, row.organization_id, {
          kind: row.payload.kind === 'CANCELLATION_REQUEST' ? 'cancellation_requests' : 'fulfillment_requests',
          subject: 'assigned fulfillment orders',
          payload: {},
        });
        return 'requests queued';
      default:
        return `ignored: ${row.topic}`;
    }
  }

  /**
   * An order's webhook and the others of its store waiting with it, made together: their jobs are
   * taken along (./along.ts), their orders go to the order writer at once and are written in its
   * batches, and each delivery ends on its own. One that fails for a passing cause (the database)
   * fails only its own job, which retries it; one the merchant's data refuses is recorded as such.
   */
  async function ordersTogether(row: InboxRow, job: JobRow): Promise<void> {
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
    const results = await Promise.allSettled(batch.map((b) => orderCreated(b.row)));
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

  return {
    /** A customer's redaction again, when the claim window of their remaining orders has closed. */
    async redactAgain(inboxId: string): Promise<void> {
      const row = await repo.inboxRow(db, inboxId);
      if (row) await privacy(row);
    },
    /** One stored webhook, on its own (the demo data's orders, before any worker runs). */
    async run(inboxId: string): Promise<void> {
      const row = await repo.inboxRow(db, inboxId);
      if (!row || row.processed_at) return;
      const outcome = await handle(row);
      await repo.markProcessed(db, row.id, outcome, clock.now());
    },
    /** A stored webhook's job; an order's takes the store's other waiting orders along. */
    async runJob(inboxId: string, job: JobRow): Promise<void> {
      const row = await repo.inboxRow(db, inboxId);
      if (!row || row.processed_at) return;
      if (row.topic === 'orders/create') return ordersTogether(row, job);
      const outcome = await handle(row);
      await repo.markProcessed(db, row.id, outcome, clock.now());
    },
  };
}
