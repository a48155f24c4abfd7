import { ApiError, badRequest } from '../../platform/errors.ts';
import { unstorableText } from '../../platform/http/hardening.ts';
import { checkAgainst } from '../../platform/http/validation.ts';
import { newReference } from '../../platform/ids.ts';
import { realNow } from '../../platform/clock.ts';
import { groupCommit } from '../../platform/db/group-commit.ts';
import type { StorefrontsDeps } from './deps.ts';
import { type ConnectionRow, type InboxRow, storefrontsRepo as repo } from './repo.ts';
import type { ShopifyApp } from './shopify/app.ts';
import { quoteLargeIntegers } from './shopify/json.ts';
import { TOPIC_SCHEMAS, type Topic, isTopic } from './shopify/payloads.ts';

export const INBOX_JOB = 'storefronts.inbox';
/** One job per stored delivery (the key `jobsOfRowsSql` gives the job it writes with the row). */
export const inboxJobKey = (inboxId: string) => `${INBOX_JOB}:${inboxId}`;

/**
 * Stores whose waiting orders a job of this process is making, with how many such jobs run. A
 * webhook of such a store stored meanwhile needs no wake-up of the worker: the job's end frees its
 * slot, and the worker claims again at once.
 */
export type OrdersInMaking = Map<string, number>;

type Headers = Record<string, string | string[] | undefined>;

/**
 * Parses and checks a signed payload against its topic's schema: a 400 naming the field otherwise.
 * `json` is the text to store: the body as signed, with ids past 2^53 as strings (see json.ts).
 */
export function parsePayload(topic: Topic, rawBody: string): { payload: unknown; json: string } {
  let payload: unknown;
  const json = quoteLargeIntegers(rawBody);
  try {
    payload = JSON.parse(json);
  } catch {
    throw badRequest(`The ${topic} payload is not JSON`, 'shopify_payload_invalid');
  }
  // The payload is stored as the text it was parsed from, into jsonb: its escapes must decode to storable text.
  const unstorable = unstorableText(payload, 'body');
  if (unstorable) throw badRequest(`The ${topic} payload: ${unstorable}`, 'shopify_payload_invalid');
  try {
    return { payload: checkAgainst(TOPIC_SCHEMAS[topic], payload, 'body'), json };
  } catch (err) {
    if (err instanceof ApiError)
      throw new ApiError('shopify_payload_invalid', `The ${topic} payload: ${err.message}`, { details: err.details });
    throw err;
  }
}

/** A verified delivery on its way into the inbox. */
interface Delivery {
  /** `json`: the payload's text to store, when there is one (else the payload is stringified). */
  row: Omit<InboxRow, 'processed_at' | 'outcome'> & { json?: string };
  /** False: stored without its job, for a caller that processes it at once. */
  queued: boolean;
}

/** A shop's store: fixed once connected (a shop is connected to one store, and stays so). */
type ShopStore = Pick<ConnectionRow, 'store_id' | 'organization_id'>;

/** Shops whose store a process remembers; past it the oldest is forgotten. */
const SHOPS_KEPT = 10_000;

/**
 * Inbound webhooks: verified over the raw body, stored once per delivery key with the job that will
 * process them, in one transaction, and only then answered. Deliveries that arrive together are
 * group-committed (decision 0501): their inbox rows and jobs are written by one multi-row insert
 * each, in one transaction, and each is answered after that commit. A redelivery, or a second
 * delivery with the key of another in the same batch, finds its row and is answered as received; a
 * crash before the commit leaves nothing, and Shopify delivers again.
 */
export function inbound(deps: StorefrontsDeps, app: () => Promise<ShopifyApp>, making: OrdersInMaking) {
  const { db, clock } = deps;

  // One statement: the rows and their jobs, in one round trip with no transaction around it.
  const write = groupCommit(db, async (batch: Delivery[]) => {
    const stored = await repo.insertInbox(
      db,
      batch.map((d) => d.row),
      { kind: INBOX_JOB, ids: batch.filter((d) => d.queued).map((d) => d.row.id), now: realNow(clock) },
    );
    // One wake-up per batch, of the pool that runs the inbox's jobs only, and none for a store whose
    // orders a job of this process is making: the worker claims again as that job ends.
    if (batch.some((d) => d.queued && stored.has(d.row.id) && !making.has(d.row.store_id)))
      deps.worker.nudge(INBOX_JOB);
    return batch.map((d) => ({ id: d.row.id, duplicate: !stored.has(d.row.id) }));
  });

  /** `json`: the payload's text when the caller has it, stored as it is. */
  function store(conn: ShopStore, topic: Topic, deliveryKey: string, payload: unknown, queued = true, json?: string) {
    const row = {
      id: newReference('ShopifyWebhook'),
      store_id: conn.store_id,
      organization_id: conn.organization_id,
      delivery_key: deliveryKey,
      topic,
      payload,
      received_at: clock.now(),
      json,
    };
    return write({ row, queued });
  }

  const shops = new Map<string, ShopStore>();
  /** Lookups under way: a burst of a shop's first webhooks sends one. */
  const looking = new Map<string, Promise<ShopStore>>();
  async function lookUp(shop: string): Promise<ShopStore> {
    const conn = await repo.connectionByShop(db, shop);
    if (!conn) throw new ApiError('shopify_shop_unknown', `No store is connected to ${shop}`);
    if (shops.size >= SHOPS_KEPT) shops.delete(shops.keys().next().value as string);
    const known = { store_id: conn.store_id, organization_id: conn.organization_id };
    shops.set(shop, known);
    return known;
  }
  function connectionOf(shop: string): ShopStore | Promise<ShopStore> {
    const known = shops.get(shop) ?? looking.get(shop);
    if (known) return known;
    const lookup = lookUp(shop).finally(() => looking.delete(shop));
    looking.set(shop, lookup);
    return lookup;
  }

  return {
    store,
    /** POST /integrations/shopify/webhooks. */
    async receiveWebhook(rawBody: string, headers: Headers) {
      const check = await (await app()).verifyWebhook(rawBody, headers);
      if (!check.ok)
        throw new ApiError('shopify_signature_invalid', `The webhook is not signed by Shopify (${check.reason})`);
      const { topic, shop, deliveryKey } = check.webhook;
      if (!isTopic(topic) || topic === 'fulfillment_order_notification')
        throw new ApiError('shopify_topic_unsupported', `The service does not take ${topic} webhooks`);
      const conn = await connectionOf(shop);
      const { payload, json } = parsePayload(topic, rawBody);
      return store(conn, topic, deliveryKey, payload, true, json);
    },
    /** POST /integrations/shopify/fulfillment_order_notification (the fulfillment service callback). */
    async receiveNotification(rawBody: string, headers: Headers) {
      const shop = await (await app()).verifyNotification(rawBody, headers);
      if (!shop) throw new ApiError('shopify_signature_invalid', 'The notification is not signed by Shopify');
      const conn = await connectionOf(shop);
      const { payload, json } = parsePayload('fulfillment_order_notification', rawBody);
      // A notification carries no id of its own: each is a prompt to look at the requests, and two
      // prompts in the same second ask the same thing.
      const key = `notification:${(payload as { kind: string }).kind}:${Math.floor(clock.now().getTime() / 1000)}`;
      return store(conn, 'fulfillment_order_notification', key, payload, true, json);
    },
  };
}
