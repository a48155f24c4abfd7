import { type Executor, organizationPage } from '../../platform/db/index.ts';
import type { Keyset } from '../../platform/http/pagination.ts';

export type ClaimStatus = 'pending' | 'resolved' | 'rejected' | 'retracted';
export type ClaimKind = 'package_missing' | 'item_issues';

export interface CategoryRow {
  id: string;
  seq: number;
  name: string;
  evidence_required: boolean;
  package_missing: boolean;
  created_at: Date;
}

export interface ClaimRow {
  id: string;
  seq: number;
  organization_id: string;
  kind: ClaimKind;
  shipment_id: string;
  order_id: string;
  status: ClaimStatus;
  comment: string;
  created_by: string;
  created_at: Date;
  retracted_at: Date | null;
  decided_at: Date | null;
  closed_at: Date | null;
  refund_shipping_costs: boolean | null;
  decision_comment: string | null;
  evidence_purged_at: Date | null;
}

export interface ClaimlineRow {
  claim_id: string;
  position: number;
  order_id: string;
  orderline_index: number;
  product_id: string;
  image_id: string | null;
  quantity: number;
  claimcategory_id: string;
  replacement_quantity: number | null;
  refund_quantity: number | null;
  rejection_quantity: number | null;
  decision_comment: string | null;
}

export interface EvidenceRow {
  id: string;
  seq: number;
  organization_id: string;
  claim_id: string | null;
  claim_position: number | null;
  format: 'jpeg' | 'png';
  size: number;
  blob_key: string;
  token: string;
  created_at: Date;
  attached_at: Date | null;
}

const PAGE = organizationPage('$1', '$2');

export const claimsRepo = {
  /** Serialises claim creation per shipment, so two concurrent claims cannot both pass the checks. */
  async lockShipment(tx: Executor, shipmentId: string): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`claims:${shipmentId}`]);
  },
  // --- categories ---
  async categories(ex: Executor): Promise<CategoryRow[]> {
    return ex.query<CategoryRow>('SELECT * FROM claimcategories ORDER BY seq');
  },
  async categoriesByIds(ex: Executor, ids: string[]): Promise<CategoryRow[]> {
    if (ids.length === 0) return [];
    return ex.query<CategoryRow>('SELECT * FROM claimcategories WHERE id = ANY($1::text[])', [ids]);
  },
  async packageMissingCategory(ex: Executor): Promise<CategoryRow | null> {
    return (await ex.query<CategoryRow>('SELECT * FROM claimcategories WHERE package_missing'))[0] ?? null;
  },
  async categoryByName(ex: Executor, name: string): Promise<CategoryRow | null> {
    return (
      (await ex.query<CategoryRow>('SELECT * FROM claimcategories WHERE lower(name) = lower($1)', [name]))[0] ?? null
    );
  },
  /** Inserts unless a category of that name (or a second package-missing one) exists. */
  async insertCategoryIfAbsent(ex: Executor, c: Omit<CategoryRow, 'seq'>): Promise<void> {
    await ex.query(
      `INSERT INTO claimcategories (id, name, evidence_required, package_missing, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [c.id, c.name, c.evidence_required, c.package_missing, c.created_at],
    );
  },

  // --- claims ---
  async insertClaim(
    ex: Executor,
    c: Pick<
      ClaimRow,
      | 'id'
      | 'organization_id'
      | 'kind'
      | 'shipment_id'
      | 'order_id'
      | 'status'
      | 'comment'
      | 'created_by'
      | 'created_at'
    >,
  ): Promise<void> {
    await ex.query(
      `INSERT INTO claims (id, organization_id, kind, shipment_id, order_id, status, comment, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [c.id, c.organization_id, c.kind, c.shipment_id, c.order_id, c.status, c.comment, c.created_by, c.created_at],
    );
  },
  async insertLine(ex: Executor, l: ClaimlineRow): Promise<void> {
    await ex.query(
      `INSERT INTO claimlines (claim_id, position, order_id, orderline_index, product_id, image_id, quantity, claimcategory_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [l.claim_id, l.position, l.order_id, l.orderline_index, l.product_id, l.image_id, l.quantity, l.claimcategory_id],
    );
  },
  /** `orgId` null: any organization (operator). */
  async claim(ex: Executor, orgId: string | null, id: string, lock = false): Promise<ClaimRow | null> {
    const rows = await ex.query<ClaimRow>(
      `SELECT * FROM claims WHERE id = $2 AND ($1::text IS NULL OR organization_id = $1)${lock ? ' FOR UPDATE' : ''}`,
      [orgId, id],
    );
    return rows[0] ?? null;
  },
  /** Open claims, and closed ones closed after `closedAfter`, newest first. */
  async claims(ex: Executor, orgId: string, ks: Keyset, closedAfter: Date): Promise<ClaimRow[]> {
    return ex.query<ClaimRow>(
      `SELECT * FROM claims WHERE ${PAGE.where}
         AND (status = 'pending' OR closed_at > $4)
       ORDER BY ${PAGE.order} LIMIT $3`,
      [orgId, ks.after, ks.limit, closedAfter],
    );
  },
  async lines(ex: Executor, claimIds: string[]): Promise<ClaimlineRow[]> {
    if (claimIds.length === 0) return [];
    return ex.query<ClaimlineRow>(
      'SELECT * FROM claimlines WHERE claim_id = ANY($1::text[]) ORDER BY claim_id, position',
      [claimIds],
    );
  },
  /** Claims on a shipment that still count (retracted ones were withdrawn). */
  async activeClaimsOfShipment(ex: Executor, shipmentId: string): Promise<ClaimRow[]> {
    return ex.query<ClaimRow>(`SELECT * FROM claims WHERE shipment_id = $1 AND status <> 'retracted' ORDER BY seq`, [
      shipmentId,
    ]);
  },
  async countPending(ex: Executor, orgId: string): Promise<number> {
    const [row] = await ex.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM claims WHERE organization_id = $1 AND status = 'pending'",
      [orgId],
    );
    return row.n;
  },
  /** Quantity per orderline of the order under pending claims. */
  async pendingQuantities(ex: Executor, orderId: string): Promise<Map<number, number>> {
    const rows = await ex.query<{ orderline_index: number; q: number }>(
      `SELECT l.orderline_index, sum(l.quantity)::int AS q FROM claimlines l JOIN claims c ON c.id = l.claim_id
       WHERE l.order_id = $1 AND c.status = 'pending' GROUP BY l.orderline_index`,
      [orderId],
    );
    return new Map(rows.map((r) => [r.orderline_index, r.q]));
  },
  async retract(ex: Executor, id: string, at: Date): Promise<void> {
    await ex.query(`UPDATE claims SET status = 'retracted', retracted_at = $2, closed_at = $2 WHERE id = $1`, [id, at]);
  },
  async decide(
    ex: Executor,
    id: string,
    d: { status: 'resolved' | 'rejected'; at: Date; refundShippingCosts: boolean; comment: string },
  ): Promise<void> {
    await ex.query(
      `UPDATE claims SET status = $2, decided_at = $3, closed_at = $3, refund_shipping_costs = $4, decision_comment = $5 WHERE id = $1`,
      [id, d.status, d.at, d.refundShippingCosts, d.comment],
    );
  },
  async decideLine(
    ex: Executor,
    claimId: string,
    position: number,
    d: { replacement: number; refund: number; rejection: number; comment: string },
  ): Promise<void> {
    await ex.query(
      `UPDATE claimlines SET replacement_quantity = $3, refund_quantity = $4, rejection_quantity = $5, decision_comment = $6 WHERE claim_id = $1 AND position = $2`,
      [claimId, position, d.replacement, d.refund, d.rejection, d.comment],
    );
  },
  async markPurged(ex: Executor, id: string, at: Date): Promise<void> {
    await ex.query('UPDATE claims SET evidence_purged_at = $2 WHERE id = $1', [id, at]);
  },

  // --- evidence ---
  async insertEvidence(
    ex: Executor,
    e: Omit<EvidenceRow, 'seq' | 'claim_id' | 'claim_position' | 'attached_at'>,
  ): Promise<void> {
    await ex.query(
      `INSERT INTO evidence (id, organization_id, format, size, blob_key, token, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [e.id, e.organization_id, e.format, e.size, e.blob_key, e.token, e.created_at],
    );
  },
  async evidenceByIds(ex: Executor, orgId: string, ids: string[], lock = false): Promise<EvidenceRow[]> {
    if (ids.length === 0) return [];
    return ex.query<EvidenceRow>(
      `SELECT * FROM evidence WHERE organization_id = $1 AND id = ANY($2::text[]) ORDER BY id${lock ? ' FOR UPDATE' : ''}`,
      [orgId, ids],
    );
  },
  async attachEvidence(ex: Executor, id: string, claimId: string, position: number | null, at: Date): Promise<void> {
    await ex.query('UPDATE evidence SET claim_id = $2, claim_position = $3, attached_at = $4 WHERE id = $1', [
      id,
      claimId,
      position,
      at,
    ]);
  },
  async evidenceOfClaims(ex: Executor, claimIds: string[]): Promise<EvidenceRow[]> {
    if (claimIds.length === 0) return [];
    return ex.query<EvidenceRow>('SELECT * FROM evidence WHERE claim_id = ANY($1::text[]) ORDER BY seq', [claimIds]);
  },
  /** A servable file: unknown, deleted or purged evidence is absent. */
  async evidenceByToken(ex: Executor, token: string): Promise<EvidenceRow | null> {
    return (await ex.query<EvidenceRow>('SELECT * FROM evidence WHERE token = $1', [token]))[0] ?? null;
  },
  /** Deletes evidence still unattached; returns its blob key when it did. */
  async deleteUnattached(ex: Executor, id: string): Promise<string | null> {
    const rows = await ex.query<{ blob_key: string }>(
      'DELETE FROM evidence WHERE id = $1 AND claim_id IS NULL RETURNING blob_key',
      [id],
    );
    return rows[0]?.blob_key ?? null;
  },
  async deleteEvidenceOfClaim(ex: Executor, claimId: string): Promise<string[]> {
    const rows = await ex.query<{ blob_key: string }>('DELETE FROM evidence WHERE claim_id = $1 RETURNING blob_key', [
      claimId,
    ]);
    return rows.map((r) => r.blob_key);
  },
};
