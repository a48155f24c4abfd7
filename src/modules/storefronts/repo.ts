import { type Executor, prepared } from '../../platform/db/index.ts';
import { jobsOfRowsSql } from '../../platform/jobs/queue.ts';

export interface ConnectionRow {
  store_id: string;
  organization_id: string;
  platform: 'shopify';
  shop_domain: string;
  token_sealed: string | null;
  scopes: string;
  status: 'connected' | 'disconnected' | 'demo';
  fulfillment_service_id: string | null;
  location_id: string | null;
  connected_at: Date;
  disconnected_at: Date | null;
  throttle: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number } | null;
  paused_until: Date | null;
}

export interface InboxRow {
  id: string;
  store_id: string;
  organization_id: string;
  delivery_key: string;
  topic: string;
  payload: any;
  received_at: Date;
  processed_at: Date | null;
  outcome: string | null;
}

export interface OperationRow {
  id: string;
  seq: number;
  store_id: string;
  organization_id: string;
  kind: string;
  subject: string;
  payload: any;
  status: 'queued' | 'done' | 'failed' | 'skipped';
  attempts: number;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface FulfillmentRow {
  order_id: string;
  store_id: string;
  fulfillment_order_ids: string[];
  fulfillment_id: string | null;
  last_event: string | null;
}

export interface ProductRow {
  id: string;
  store_id: string;
  organization_id: string;
  image_id: string;
  title: string;
  price_cents: number;
  product_ids: string[];
  status: 'publishing' | 'published' | 'unpublishing' | 'archived' | 'failed';
  upstream_product_id: string | null;
  media: Array<{ productId: string; blobKey: string; kind: string }>;
  created_at: Date;
  updated_at: Date;
}

export interface PrivacyRow {
  id: string;
  store_id: string;
  topic: string;
  request: any;
  action: string;
  created_at: Date;
}

// A key twice in one statement is stored once: DO NOTHING skips the second row as it would a stored
// one. The rows stored among those of $8 get their job (`inboxId`) in the same statement.
const INSERT_INBOX = prepared(
  `WITH stored AS (
     INSERT INTO storefront_inbox (id, store_id, organization_id, delivery_key, topic, payload, received_at)
     SELECT r.id, r.store_id, r.organization_id, r.delivery_key, r.topic, r.payload::jsonb, r.received_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
            AS r(id, store_id, organization_id, delivery_key, topic, payload, received_at)
     ON CONFLICT (store_id, delivery_key) DO NOTHING RETURNING id, organization_id),
   queued AS (${jobsOfRowsSql('SELECT id, organization_id FROM stored WHERE id = ANY($8::text[])', { kind: 9, now: 10, payloadKey: 'inboxId' })})
   SELECT id FROM stored`,
);
const CONNECTION_BY_SHOP = prepared('SELECT * FROM storefront_connections WHERE shop_domain = $1');

export const storefrontsRepo = {
  connectionByShop: async (ex: Executor, shop: string) =>
    (await ex.query<ConnectionRow>(CONNECTION_BY_SHOP, [shop]))[0] ?? null,
  connectionOfStore: async (ex: Executor, storeId: string) =>
    (await ex.query<ConnectionRow>('SELECT * FROM storefront_connections WHERE store_id = $1', [storeId]))[0] ?? null,
  connectionsOf: (ex: Executor, orgId: string) =>
    ex.query<ConnectionRow>('SELECT * FROM storefront_connections WHERE organization_id = $1 ORDER BY connected_at', [
      orgId,
    ]),
  async upsertConnection(ex: Executor, c: Omit<ConnectionRow, 'throttle' | 'paused_until' | 'disconnected_at'>) {
    await ex.query(
      `INSERT INTO storefront_connections (store_id, organization_id, platform, shop_domain, token_sealed, scopes, status,
         fulfillment_service_id, location_id, connected_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (store_id) DO UPDATE SET token_sealed = EXCLUDED.token_sealed, scopes = EXCLUDED.scopes,
         status = EXCLUDED.status, connected_at = EXCLUDED.connected_at, disconnected_at = NULL`,
      [
        c.store_id,
        c.organization_id,
        c.platform,
        c.shop_domain,
        c.token_sealed,
        c.scopes,
        c.status,
        c.fulfillment_service_id,
        c.location_id,
        c.connected_at,
      ],
    );
  },
  async setFulfillmentService(ex: Executor, storeId: string, serviceId: string, locationId: string) {
    await ex.query(
      'UPDATE storefront_connections SET fulfillment_service_id = $2, location_id = $3 WHERE store_id = $1',
      [storeId, serviceId, locationId],
    );
  },
  async disconnect(ex: Executor, storeId: string, at: Date): Promise<boolean> {
    const rows = await ex.query(
      `UPDATE storefront_connections SET status = 'disconnected', token_sealed = NULL, disconnected_at = $2
       WHERE store_id = $1 AND status <> 'disconnected' RETURNING store_id`,
      [storeId, at],
    );
    return rows.length === 1;
  },
  async setThrottle(ex: Executor, storeId: string, throttle: ConnectionRow['throttle'], pausedUntil: Date | null) {
    await ex.query('UPDATE storefront_connections SET throttle = $2, paused_until = $3 WHERE store_id = $1', [
      storeId,
      throttle === null ? null : JSON.stringify(throttle),
      pausedUntil,
    ]);
  },

  /**
   * Stores webhooks once per delivery key, and a job of `jobs.kind` for each stored one among
   * `jobs.ids`, in one statement; returns the ids stored (a redelivery's, or the second of two with
   * one key, is not among them).
   */
  async insertInbox(
    ex: Executor,
    rows: Array<Omit<InboxRow, 'processed_at' | 'outcome'> & { json?: string }>,
    jobs: { kind: string; ids: string[]; now: Date } = { kind: '', ids: [], now: new Date() },
  ): Promise<Set<string>> {
    const stored = await ex.query<{ id: string }>(INSERT_INBOX, [
      rows.map((r) => r.id),
      rows.map((r) => r.store_id),
      rows.map((r) => r.organization_id),
      rows.map((r) => r.delivery_key),
      rows.map((r) => r.topic),
      rows.map((r) => r.json ?? JSON.stringify(r.payload)),
      rows.map((r) => r.received_at.toISOString()),
      jobs.ids,
      jobs.kind,
      jobs.now,
    ]);
    return new Set(stored.map((r) => r.id));
  },
  inboxRow: async (ex: Executor, id: string, lock = false) =>
    (await ex.query<InboxRow>(`SELECT * FROM storefront_inbox WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]))[0] ??
    null,
  async markProcessed(ex: Executor, id: string, outcome: string, at: Date) {
    await ex.query('UPDATE storefront_inbox SET processed_at = $2, outcome = $3 WHERE id = $1', [
      id,
      at,
      outcome.slice(0, 500),
    ]);
  },
  /** The store's other `orders/create` deliveries not processed yet, oldest first. */
  waitingOrders: (ex: Executor, storeId: string, exceptId: string, limit: number) =>
    ex.query<InboxRow>(
      `SELECT * FROM storefront_inbox
        WHERE store_id = $1 AND processed_at IS NULL AND topic = 'orders/create' AND id <> $2
        ORDER BY seq LIMIT $3`,
      [storeId, exceptId, limit],
    ),
  /** Outcomes of several deliveries in one statement; one processed meanwhile keeps its own. */
  async markProcessedMany(ex: Executor, outcomes: Array<{ id: string; outcome: string }>, at: Date) {
    if (outcomes.length === 0) return;
    await ex.query(
      `UPDATE storefront_inbox SET processed_at = $3, outcome = o.outcome
         FROM unnest($1::text[], $2::text[]) AS o(id, outcome)
        WHERE storefront_inbox.id = o.id AND storefront_inbox.processed_at IS NULL`,
      [outcomes.map((o) => o.id), outcomes.map((o) => o.outcome.slice(0, 500)), at],
    );
  },
  recentInbox: (ex: Executor, storeId: string, limit: number) =>
    ex.query<InboxRow>(
      'SELECT id, store_id, organization_id, delivery_key, topic, received_at, processed_at, outcome, NULL AS payload FROM storefront_inbox WHERE store_id = $1 ORDER BY seq DESC LIMIT $2',
      [storeId, limit],
    ),

  async insertOperation(ex: Executor, o: Omit<OperationRow, 'seq' | 'attempts' | 'last_error' | 'updated_at'>) {
    await ex.query(
      `INSERT INTO storefront_operations (id, store_id, organization_id, kind, subject, payload, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [o.id, o.store_id, o.organization_id, o.kind, o.subject, JSON.stringify(o.payload), o.status, o.created_at],
    );
  },
  operation: async (ex: Executor, id: string) =>
    (await ex.query<OperationRow>('SELECT * FROM storefront_operations WHERE id = $1', [id]))[0] ?? null,
  async finishOperation(ex: Executor, id: string, status: OperationRow['status'], error: string | null, at: Date) {
    await ex.query(
      'UPDATE storefront_operations SET status = $2, last_error = $3, attempts = attempts + 1, updated_at = $4 WHERE id = $1',
      [id, status, error?.slice(0, 1000) ?? null, at],
    );
  },
  async noteAttempt(ex: Executor, id: string, error: string, at: Date) {
    await ex.query(
      'UPDATE storefront_operations SET attempts = attempts + 1, last_error = $2, updated_at = $3 WHERE id = $1',
      [id, error.slice(0, 1000), at],
    );
  },
  async requeue(ex: Executor, storeId: string, id: string, at: Date): Promise<OperationRow | null> {
    const rows = await ex.query<OperationRow>(
      `UPDATE storefront_operations SET status = 'queued', attempts = 0, updated_at = $3
       WHERE id = $1 AND store_id = $2 AND status = 'failed' RETURNING *`,
      [id, storeId, at],
    );
    return rows[0] ?? null;
  },
  /** Publications, in any store, that carry a model and are not archived (or being archived). */
  publicationsWithProduct: (ex: Executor, productId: string) =>
    ex.query<ProductRow>(
      `SELECT * FROM storefront_products WHERE $1 = ANY(product_ids) AND status NOT IN ('archived', 'unpublishing')`,
      [productId],
    ),
  /** Each published product's latest publish or unpublish call (what its row on the store's page shows). */
  latestPublicationOperations: (ex: Executor, storeId: string) =>
    ex.query<OperationRow>(
      `SELECT DISTINCT ON (payload->>'productId') * FROM storefront_operations
       WHERE store_id = $1 AND kind IN ('publish', 'unpublish')
       ORDER BY payload->>'productId', seq DESC`,
      [storeId],
    ),
  operationsOf: (ex: Executor, storeId: string, status: OperationRow['status'] | null, limit: number) =>
    ex.query<OperationRow>(
      `SELECT * FROM storefront_operations WHERE store_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY seq DESC LIMIT $3`,
      [storeId, status, limit],
    ),

  fulfillment: async (ex: Executor, orderId: string) =>
    (await ex.query<FulfillmentRow>('SELECT * FROM storefront_fulfillments WHERE order_id = $1', [orderId]))[0] ?? null,
  async addFulfillmentOrder(ex: Executor, orderId: string, storeId: string, fulfillmentOrderId: string | null) {
    await ex.query(
      `INSERT INTO storefront_fulfillments (order_id, store_id, fulfillment_order_ids)
       VALUES ($1, $2, CASE WHEN $3::text IS NULL THEN '{}'::text[] ELSE ARRAY[$3::text] END)
       ON CONFLICT (order_id) DO UPDATE SET fulfillment_order_ids = CASE
         WHEN $3::text IS NULL OR $3::text = ANY(storefront_fulfillments.fulfillment_order_ids) THEN storefront_fulfillments.fulfillment_order_ids
         ELSE storefront_fulfillments.fulfillment_order_ids || $3::text END`,
      [orderId, storeId, fulfillmentOrderId],
    );
  },
  async setFulfillment(ex: Executor, orderId: string, fulfillmentId: string | null, lastEvent: string | null) {
    await ex.query(
      'UPDATE storefront_fulfillments SET fulfillment_id = COALESCE($2, fulfillment_id), last_event = COALESCE($3, last_event) WHERE order_id = $1',
      [orderId, fulfillmentId, lastEvent],
    );
  },

  productOf: async (ex: Executor, storeId: string, id: string) =>
    (
      await ex.query<ProductRow>('SELECT * FROM storefront_products WHERE store_id = $1 AND id = $2', [storeId, id])
    )[0] ?? null,
  productByDesign: async (ex: Executor, storeId: string, imageId: string) =>
    (
      await ex.query<ProductRow>('SELECT * FROM storefront_products WHERE store_id = $1 AND image_id = $2', [
        storeId,
        imageId,
      ])
    )[0] ?? null,
  productsOf: (ex: Executor, storeId: string) =>
    ex.query<ProductRow>('SELECT * FROM storefront_products WHERE store_id = $1 ORDER BY seq DESC', [storeId]),
  async saveProduct(ex: Executor, p: Omit<ProductRow, 'media' | 'upstream_product_id'>) {
    await ex.query(
      `INSERT INTO storefront_products (id, store_id, organization_id, image_id, title, price_cents, product_ids, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (store_id, image_id) DO UPDATE SET title = EXCLUDED.title, price_cents = EXCLUDED.price_cents,
         product_ids = EXCLUDED.product_ids, status = EXCLUDED.status, updated_at = EXCLUDED.updated_at`,
      [
        p.id,
        p.store_id,
        p.organization_id,
        p.image_id,
        p.title,
        p.price_cents,
        p.product_ids,
        p.status,
        p.created_at,
        p.updated_at,
      ],
    );
  },
  async setProductState(
    ex: Executor,
    id: string,
    s: { status: ProductRow['status']; upstreamId?: string; media?: ProductRow['media']; at: Date },
  ) {
    await ex.query(
      `UPDATE storefront_products SET status = $2, upstream_product_id = COALESCE($3, upstream_product_id),
         media = COALESCE($4::jsonb, media), updated_at = $5 WHERE id = $1`,
      [id, s.status, s.upstreamId ?? null, s.media ? JSON.stringify(s.media) : null, s.at],
    );
  },

  async logPrivacy(ex: Executor, r: Omit<PrivacyRow, 'created_at'> & { organization_id: string; at: Date }) {
    await ex.query(
      `INSERT INTO storefront_privacy_log (id, store_id, organization_id, topic, request, action, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [r.id, r.store_id, r.organization_id, r.topic, JSON.stringify(r.request), r.action, r.at],
    );
  },
  privacyLog: (ex: Executor, storeId: string, limit: number) =>
    ex.query<PrivacyRow>('SELECT * FROM storefront_privacy_log WHERE store_id = $1 ORDER BY seq DESC LIMIT $2', [
      storeId,
      limit,
    ]),
};
