import { type Executor, organizationPage, prepared } from '../../platform/db/index.ts';
import type { Keyset } from '../../platform/http/pagination.ts';
import type { Address } from '../shipping/address.ts';
import type { ShippingLevel } from '../shipping/data.ts';

export type OrderStatus = 'pending' | 'preorder' | 'in_production' | 'shipped' | 'canceled';

export interface OrderRow {
  id: string;
  seq: number;
  organization_id: string;
  store_id: string;
  order_number: number;
  shipping_kind: 'dropship' | 'combined';
  custom_identifier: string | null;
  dropship_address_id: string | null;
  minimal_shipping_level: ShippingLevel | null;
  shipping_level: ShippingLevel | null;
  brand_id: string | null;
  packaging_id: string | null;
  status: OrderStatus;
  status_modified_at: Date;
  shipping_cents: number;
  shipment_id: string | null;
  replacement_for_claim_id: string | null;
  replaces_order_id: string | null;
  via_store_code: string | null;
  /** The upstream platform's order (a Shopify store's order): its id and name there. */
  upstream_order_id?: string | null;
  upstream_order_name?: string | null;
  created_at: Date;
}

export interface OrderlineRow {
  order_id: string;
  line_index: number;
  product_id: string;
  image_id: string | null;
  quantity: number;
  canceled_quantity: number;
  shipped_quantity: number;
  annotations: Array<{ key: string; value: string }>;
  unit_price_cents: number;
  unit_weight_grams: number;
  awaiting_launch: boolean;
}

export interface AddressRow {
  id: string;
  organization_id: string;
  fields: Address;
  created_at: Date;
}

export interface OrderFilter {
  storeId?: string;
  status?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** One attempt of the legacy callback, as the order timeline shows it. */
export interface CallbackAttemptRow {
  /** The callback job: one per change the store is told about. */
  job_id: number;
  /** The job's attempt number: it starts again at 1 for each change the store is told about. */
  attempt: number;
  at: Date;
  /** `not_sent`: the store had no callback URL any more when the job ran. */
  outcome: 'delivered' | 'failed' | 'not_sent';
  response_status: number | null;
  error: string | null;
  duration_ms: number;
}

const PAGE = organizationPage('$1', '$2');

export const ordersRepo = {
  /** The order taken for an upstream platform's order. */
  upstreamOrder: async (ex: Executor, storeId: string, upstreamId: string) =>
    (
      await ex.query<{ id: string; status: OrderStatus }>(
        'SELECT id, status FROM orders WHERE store_id = $1 AND upstream_order_id = $2',
        [storeId, upstreamId],
      )
    )[0] ?? null,
  /** The orders taken for several upstream orders of a store, by upstream id: absent ones are not taken. */
  upstreamOrders: async (ex: Executor, storeId: string, upstreamIds: string[]) =>
    new Map(
      (
        await ex.query<{ id: string; upstream_order_id: string }>(
          'SELECT id, upstream_order_id FROM orders WHERE store_id = $1 AND upstream_order_id = ANY($2::text[])',
          [storeId, upstreamIds],
        )
      ).map((r) => [r.upstream_order_id, r.id]),
    ),
  /**
   * Blanks the dropship addresses of a store's upstream orders (all, or those of `upstreamIds`) that
   * left at least `windowDays` ago or were canceled; answers how many, and when the next one's closes.
   */
  async redactUpstreamAddresses(
    ex: Executor,
    storeId: string,
    upstreamIds: string[] | null,
    now: Date,
    windowDays: number,
  ) {
    const rows = await ex.query<{ redacted: number; next: Date | null }>(
      `WITH mine AS (
         SELECT id, dropship_address_id, status, status_modified_at FROM orders
         WHERE store_id = $1 AND upstream_order_id IS NOT NULL AND ($2::text[] IS NULL OR upstream_order_id = ANY($2::text[]))),
       closed AS (
         SELECT dropship_address_id FROM mine WHERE dropship_address_id IS NOT NULL
           AND (status = 'canceled' OR (status = 'shipped' AND status_modified_at + make_interval(days => $4) <= $3))),
       done AS (
         UPDATE addresses SET fields = jsonb_build_object('redacted', true)
         WHERE id IN (SELECT dropship_address_id FROM closed) AND NOT (fields ? 'redacted') RETURNING id)
       SELECT (SELECT count(*)::int FROM done) AS redacted,
              (SELECT min(CASE WHEN status = 'shipped' THEN status_modified_at + make_interval(days => $4)
                               ELSE $3::timestamptz + make_interval(days => $4) END)
                 FROM mine WHERE dropship_address_id NOT IN (SELECT dropship_address_id FROM closed)) AS next`,
      [storeId, upstreamIds, now, windowDays],
    );
    return rows[0];
  },
  async insertAddress(ex: Executor, a: AddressRow): Promise<void> {
    await ex.query('INSERT INTO addresses (id, organization_id, fields, created_at) VALUES ($1, $2, $3, $4)', [
      a.id,
      a.organization_id,
      JSON.stringify(a.fields),
      a.created_at,
    ]);
  },
  async address(ex: Executor, id: string): Promise<AddressRow | null> {
    return (await ex.query<AddressRow>('SELECT * FROM addresses WHERE id = $1', [id]))[0] ?? null;
  },
  /** An address resolves while an order points at it or a shipment was created with it. */
  async resolvableAddress(ex: Executor, orgId: string, id: string): Promise<AddressRow | null> {
    const rows = await ex.query<AddressRow>(
      `SELECT a.* FROM addresses a WHERE a.organization_id = $1 AND a.id = $2
         AND (EXISTS (SELECT 1 FROM orders o WHERE o.dropship_address_id = a.id) OR EXISTS (SELECT 1 FROM shipments s WHERE s.address_id = a.id))`,
      [orgId, id],
    );
    return rows[0] ?? null;
  },

  /**
   * Orders with their lines and new dropship addresses in one statement: the hot path of order
   * creation, one round trip for a whole batch, and one statement text (arrays, not VALUES lists)
   * so that it is prepared once. Rows are stored as given (`seq` aside): callers build views from
   * what they passed instead of reading it back.
   */
  async insertOrders(
    ex: Executor,
    items: Array<{ order: Omit<OrderRow, 'seq'>; lines: OrderlineRow[]; address?: AddressRow }>,
  ): Promise<void> {
    const col = <R, V>(rows: R[], f: (r: R) => V) => rows.map(f);
    const os = items.map((i) => i.order);
    const as = items.flatMap((i) => (i.address ? [i.address] : []));
    const ls = items.flatMap((i) => i.lines);
    await ex.query(
      prepared(
        `WITH a AS (INSERT INTO addresses (id, organization_id, fields, created_at)
         SELECT id, organization_id, fields::jsonb, created_at FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS x (id, organization_id, fields, created_at)),
       o AS (INSERT INTO orders (id, organization_id, store_id, order_number, shipping_kind, custom_identifier, dropship_address_id,
         minimal_shipping_level, shipping_level, brand_id, packaging_id, status, status_modified_at, shipping_cents, shipment_id,
         replacement_for_claim_id, replaces_order_id, via_store_code, created_at, upstream_order_id, upstream_order_name)
         SELECT * FROM unnest($5::text[], $6::text[], $7::text[], $8::int[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[],
           $15::text[], $16::text[], $17::timestamptz[], $18::int[], $19::text[], $20::text[], $21::text[], $22::text[], $23::timestamptz[], $35::text[], $36::text[]))
       INSERT INTO orderlines (order_id, line_index, product_id, image_id, quantity, canceled_quantity, shipped_quantity, annotations, unit_price_cents, unit_weight_grams, awaiting_launch)
         SELECT order_id, line_index, product_id, image_id, quantity, canceled_quantity, shipped_quantity, annotations::jsonb, unit_price_cents, unit_weight_grams, awaiting_launch
         FROM unnest($24::text[], $25::int[], $26::text[], $27::text[], $28::int[], $29::int[], $30::int[], $31::text[], $32::int[], $33::int[], $34::boolean[])
           AS x (order_id, line_index, product_id, image_id, quantity, canceled_quantity, shipped_quantity, annotations, unit_price_cents, unit_weight_grams, awaiting_launch)`,
      ),
      [
        col(as, (a) => a.id),
        col(as, (a) => a.organization_id),
        col(as, (a) => JSON.stringify(a.fields)),
        col(as, (a) => a.created_at),
        col(os, (o) => o.id),
        col(os, (o) => o.organization_id),
        col(os, (o) => o.store_id),
        col(os, (o) => o.order_number),
        col(os, (o) => o.shipping_kind),
        col(os, (o) => o.custom_identifier),
        col(os, (o) => o.dropship_address_id),
        col(os, (o) => o.minimal_shipping_level),
        col(os, (o) => o.shipping_level),
        col(os, (o) => o.brand_id),
        col(os, (o) => o.packaging_id),
        col(os, (o) => o.status),
        col(os, (o) => o.status_modified_at),
        col(os, (o) => o.shipping_cents),
        col(os, (o) => o.shipment_id),
        col(os, (o) => o.replacement_for_claim_id),
        col(os, (o) => o.replaces_order_id),
        col(os, (o) => o.via_store_code),
        col(os, (o) => o.created_at),
        col(ls, (l) => l.order_id),
        col(ls, (l) => l.line_index),
        col(ls, (l) => l.product_id),
        col(ls, (l) => l.image_id),
        col(ls, (l) => l.quantity),
        col(ls, (l) => l.canceled_quantity),
        col(ls, (l) => l.shipped_quantity),
        col(ls, (l) => JSON.stringify(l.annotations)),
        col(ls, (l) => l.unit_price_cents),
        col(ls, (l) => l.unit_weight_grams),
        col(ls, (l) => l.awaiting_launch),
        col(os, (o) => o.upstream_order_id ?? null),
        col(os, (o) => o.upstream_order_name ?? null),
      ],
    );
  },

  /** `orgId` null: any organization (operator routes). */
  async order(ex: Executor, orgId: string | null, id: string, lock = false): Promise<OrderRow | null> {
    const rows = await ex.query<OrderRow>(
      `SELECT * FROM orders WHERE id = $2 AND ($1::text IS NULL OR organization_id = $1)${lock ? ' FOR UPDATE' : ''}`,
      [orgId, id],
    );
    return rows[0] ?? null;
  },
  /** The order with its lines in one round trip (GET by reference). */
  async orderWithLines(
    ex: Executor,
    orgId: string,
    id: string,
  ): Promise<{ order: OrderRow; lines: OrderlineRow[] } | null> {
    const rows = await ex.query<OrderRow & { lines: OrderlineRow[] }>(
      prepared(
        `SELECT o.*, COALESCE((SELECT json_agg(l ORDER BY l.line_index) FROM orderlines l WHERE l.order_id = o.id), '[]') AS lines
       FROM orders o WHERE o.id = $2 AND o.organization_id = $1`,
      ),
      [orgId, id],
    );
    if (!rows[0]) return null;
    const { lines, ...order } = rows[0];
    return { order: order as OrderRow, lines };
  },
  async ordersByIds(ex: Executor, orgId: string | null, ids: string[], lock = false): Promise<OrderRow[]> {
    return ex.query<OrderRow>(
      `SELECT * FROM orders WHERE id = ANY($2::text[]) AND ($1::text IS NULL OR organization_id = $1) ORDER BY id${lock ? ' FOR UPDATE' : ''}`,
      [orgId, ids],
    );
  },
  async orderByCustomIdentifier(ex: Executor, orgId: string, customIdentifier: string): Promise<OrderRow | null> {
    return (
      (
        await ex.query<OrderRow>('SELECT * FROM orders WHERE organization_id = $1 AND custom_identifier = $2', [
          orgId,
          customIdentifier,
        ])
      )[0] ?? null
    );
  },
  /** Newest first, on the (organization_id, seq) index whatever the data looks like (`organizationPage`). */
  async orders(ex: Executor, orgId: string, ks: Keyset, f: OrderFilter): Promise<OrderRow[]> {
    return ex.query<OrderRow>(
      `SELECT * FROM orders WHERE ${PAGE.where}
         AND ($4::text IS NULL OR store_id = $4) AND ($5::text IS NULL OR status = $5)
         AND ($6::timestamptz IS NULL OR created_at > $6) AND ($7::timestamptz IS NULL OR created_at < $7)
       ORDER BY ${PAGE.order} LIMIT $3`,
      [orgId, ks.after, ks.limit, f.storeId ?? null, f.status ?? null, f.createdAfter ?? null, f.createdBefore ?? null],
    );
  },
  async ordersOfShipment(ex: Executor, shipmentId: string): Promise<OrderRow[]> {
    return ex.query<OrderRow>('SELECT * FROM orders WHERE shipment_id = $1 ORDER BY seq', [shipmentId]);
  },
  async lines(ex: Executor, orderIds: string[]): Promise<OrderlineRow[]> {
    if (orderIds.length === 0) return [];
    return ex.query<OrderlineRow>(
      'SELECT * FROM orderlines WHERE order_id = ANY($1::text[]) ORDER BY order_id, line_index',
      [orderIds],
    );
  },

  async setStatus(ex: Executor, id: string, status: OrderStatus, at: Date): Promise<void> {
    await ex.query('UPDATE orders SET status = $2, status_modified_at = $3 WHERE id = $1 AND status <> $2', [
      id,
      status,
      at,
    ]);
  },
  async setCanceled(ex: Executor, orderId: string, index: number, canceled: number): Promise<void> {
    await ex.query('UPDATE orderlines SET canceled_quantity = $3 WHERE order_id = $1 AND line_index = $2', [
      orderId,
      index,
      canceled,
    ]);
  },
  async setShipping(ex: Executor, id: string, level: ShippingLevel | null, cents: number): Promise<void> {
    await ex.query('UPDATE orders SET shipping_level = $2, shipping_cents = $3 WHERE id = $1', [id, level, cents]);
  },
  async setAddress(ex: Executor, id: string, addressId: string): Promise<void> {
    await ex.query('UPDATE orders SET dropship_address_id = $2 WHERE id = $1', [id, addressId]);
  },
  /** Ships every open quantity of the order's lines. */
  async markShipped(ex: Executor, id: string, shipmentId: string, at: Date): Promise<void> {
    await ex.query('UPDATE orderlines SET shipped_quantity = quantity - canceled_quantity WHERE order_id = $1', [id]);
    await ex.query(`UPDATE orders SET shipment_id = $2, status = 'shipped', status_modified_at = $3 WHERE id = $1`, [
      id,
      shipmentId,
      at,
    ]);
  },

  /** Lines that waited for `productId` to launch stop waiting; returns their orders. */
  async launchProduct(ex: Executor, productId: string): Promise<string[]> {
    const rows = await ex.query<{ order_id: string }>(
      'UPDATE orderlines SET awaiting_launch = false WHERE product_id = $1 AND awaiting_launch RETURNING order_id',
      [productId],
    );
    return [...new Set(rows.map((r) => r.order_id))];
  },
  /** The `pending` orders billed to an account, the oldest first. */
  async pendingOfAccount(ex: Executor, accountId: string): Promise<string[]> {
    const rows = await ex.query<{ id: string }>(
      `SELECT o.id FROM orders o JOIN stores s ON s.id = o.store_id
       WHERE s.account_id = $1 AND o.status = 'pending' ORDER BY o.seq LIMIT 500`,
      [accountId],
    );
    return rows.map((r) => r.id);
  },
  async stillAwaiting(ex: Executor, orderId: string): Promise<boolean> {
    return (
      (
        await ex.query(
          'SELECT 1 FROM orderlines WHERE order_id = $1 AND awaiting_launch AND canceled_quantity < quantity LIMIT 1',
          [orderId],
        )
      ).length > 0
    );
  },
  /** The replacement orders a claim's decision created, oldest first. */
  async replacementOrdersOfClaim(ex: Executor, orgId: string, claimId: string): Promise<string[]> {
    const rows = await ex.query<{ id: string }>(
      'SELECT id FROM orders WHERE organization_id = $1 AND replacement_for_claim_id = $2 ORDER BY seq',
      [orgId, claimId],
    );
    return rows.map((r) => r.id);
  },
  async replacementOf(ex: Executor, orderId: string): Promise<OrderRow | null> {
    return (
      (
        await ex.query<OrderRow>('SELECT * FROM orders WHERE replaces_order_id = $1 ORDER BY seq LIMIT 1', [orderId])
      )[0] ?? null
    );
  },

  /** One statement, so a recorded attempt is always whole. */
  async insertCallbackAttempt(
    ex: Executor,
    a: CallbackAttemptRow & { organization_id: string; order_id: string },
  ): Promise<void> {
    await ex.query(
      `INSERT INTO callback_attempts (organization_id, order_id, job_id, attempt, at, outcome, response_status, error, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [a.organization_id, a.order_id, a.job_id, a.attempt, a.at, a.outcome, a.response_status, a.error, a.duration_ms],
    );
  },
  /** The newest `limit` attempts of an order, oldest first. */
  async callbackAttempts(ex: Executor, orgId: string, orderId: string, limit: number): Promise<CallbackAttemptRow[]> {
    return ex.query<CallbackAttemptRow>(
      `SELECT job_id, attempt, at, outcome, response_status, error, duration_ms FROM (
         SELECT * FROM callback_attempts WHERE organization_id = $1 AND order_id = $2 ORDER BY seq DESC LIMIT $3) x
       ORDER BY seq`,
      [orgId, orderId, limit],
    );
  },
  /** Deletes attempts older than `before` in slices, so a large backlog never holds one long lock. */
  async purgeCallbackAttempts(ex: Executor, before: Date, slice = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await ex.query(
        `DELETE FROM callback_attempts WHERE seq IN (SELECT seq FROM callback_attempts WHERE at < $1 LIMIT $2) RETURNING seq`,
        [before, slice],
      );
      total += rows.length;
      if (rows.length < slice) return total;
    }
  },
};
