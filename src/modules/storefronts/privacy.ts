import { newReference } from '../../platform/ids.ts';
import type { StorefrontsDeps } from './deps.ts';
import type { Operations } from './operations.ts';
import { type InboxRow, storefrontsRepo as repo } from './repo.ts';
import type { PrivacyRequest } from './shopify/payloads.ts';

/**
 * Shopify's privacy webhooks (customer data request, customer redact, shop redact): what was done
 * is recorded in the privacy log and returned as the delivery's outcome.
 */
export function privacyRequests(deps: StorefrontsDeps, ops: Operations) {
  const { db, clock } = deps;

  return async function privacy(row: InboxRow): Promise<string> {
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
  };
}
