import type { JobRow } from '../../platform/jobs/queue.ts';
import type { StorefrontsDeps } from './deps.ts';
import type { Operations } from './operations.ts';
import { privacyRequests } from './privacy.ts';
import type { OrdersInMaking } from './inbound.ts';
import { orderMaking } from './process-orders.ts';
import { type InboxRow, storefrontsRepo as repo } from './repo.ts';

/**
 * What each stored webhook does. Runs as a job: a failure that is not the payload's fault (the
 * database, a crash) is retried, and an order is never taken twice (one order per upstream order id).
 */
export function processing(deps: StorefrontsDeps, ops: Operations, making: OrdersInMaking) {
  const { db, clock } = deps;
  const { orderCreated, ordersTogether } = orderMaking(deps, making);
  const privacy = privacyRequests(deps, ops);

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
