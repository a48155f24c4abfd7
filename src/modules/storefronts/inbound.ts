import { ApiError, badRequest } from '../../platform/errors.ts';
import { checkAgainst } from '../../platform/http/validation.ts';
import { newReference } from '../../platform/ids.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import type { StorefrontsDeps } from './deps.ts';
import { type ConnectionRow, storefrontsRepo as repo } from './repo.ts';
import type { ShopifyApp } from './shopify/app.ts';
import { parseKeepingLargeIntegers } from './shopify/json.ts';
import { TOPIC_SCHEMAS, type Topic, isTopic } from './shopify/payloads.ts';

export const INBOX_JOB = 'storefronts.inbox';
/** One job per stored delivery. */
export const inboxJobKey = (inboxId: string) => `${INBOX_JOB}:${inboxId}`;

type Headers = Record<string, string | string[] | undefined>;

/** Parses and checks a signed payload against its topic's schema: a 400 naming the field otherwise. */
export function parsePayload(topic: Topic, rawBody: string): unknown {
  let payload: unknown;
  try {
    payload = parseKeepingLargeIntegers(rawBody);
  } catch {
    throw badRequest(`The ${topic} payload is not JSON`, 'shopify_payload_invalid');
  }
  try {
    return checkAgainst(TOPIC_SCHEMAS[topic], payload, 'body');
  } catch (err) {
    if (err instanceof ApiError)
      throw new ApiError('shopify_payload_invalid', `The ${topic} payload: ${err.message}`, { details: err.details });
    throw err;
  }
}

/**
 * Inbound webhooks: verified over the raw body, stored once per delivery key with the job that will
 * process them, in one transaction, and only then answered. A redelivery finds its row and is
 * answered as received; a crash before the commit leaves nothing, and Shopify delivers again.
 */
export function inbound(deps: StorefrontsDeps, app: () => ShopifyApp) {
  const { db, clock } = deps;

  /** `queued: false` stores the delivery without its job, for a caller that processes it at once. */
  async function store(conn: ConnectionRow, topic: Topic, deliveryKey: string, payload: unknown, queued = true) {
    const id = newReference('ShopifyWebhook');
    return db.tx(async (tx) => {
      const fresh = await repo.insertInbox(tx, {
        id,
        store_id: conn.store_id,
        organization_id: conn.organization_id,
        delivery_key: deliveryKey,
        topic,
        payload,
        received_at: clock.now(),
      });
      if (fresh && queued)
        await enqueue(
          tx,
          clock,
          INBOX_JOB,
          { inboxId: id },
          { organizationId: conn.organization_id, dedupeKey: inboxJobKey(id) },
        );
      return { id, duplicate: !fresh };
    });
  }

  async function connectionOf(shop: string): Promise<ConnectionRow> {
    const conn = await repo.connectionByShop(db, shop);
    if (!conn) throw new ApiError('shopify_shop_unknown', `No store is connected to ${shop}`);
    return conn;
  }

  return {
    store,
    /** POST /integrations/shopify/webhooks. */
    async receiveWebhook(rawBody: string, headers: Headers) {
      const check = await app().verifyWebhook(rawBody, headers);
      if (!check.ok)
        throw new ApiError('shopify_signature_invalid', `The webhook is not signed by Shopify (${check.reason})`);
      const { topic, shop, deliveryKey } = check.webhook;
      if (!isTopic(topic) || topic === 'fulfillment_order_notification')
        throw new ApiError('shopify_topic_unsupported', `The service does not take ${topic} webhooks`);
      const conn = await connectionOf(shop);
      const payload = parsePayload(topic, rawBody);
      const stored = await store(conn, topic, deliveryKey, payload);
      deps.worker.nudge();
      return stored;
    },
    /** POST /integrations/shopify/fulfillment_order_notification (the fulfillment service callback). */
    async receiveNotification(rawBody: string, headers: Headers) {
      const shop = await app().verifyNotification(rawBody, headers);
      if (!shop) throw new ApiError('shopify_signature_invalid', 'The notification is not signed by Shopify');
      const conn = await connectionOf(shop);
      const payload = parsePayload('fulfillment_order_notification', rawBody);
      // A notification carries no id of its own: each is a prompt to look at the requests, and two
      // prompts in the same second ask the same thing.
      const key = `notification:${(payload as { kind: string }).kind}:${Math.floor(clock.now().getTime() / 1000)}`;
      const stored = await store(conn, 'fulfillment_order_notification', key, payload);
      deps.worker.nudge();
      return stored;
    },
  };
}
