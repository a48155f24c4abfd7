import type { Executor } from '../../platform/db/index.ts';
import { randomId } from '../../platform/ids.ts';

/**
 * Where a printed case is on the floor. `awaiting_batch` → `batched` (in a jig's slot) → `printed`
 * (print station) → `qc_passed` | `qc_failed` (QC station) → `packed` (pack station). A failed unit
 * is queued for a remake: back to `awaiting_batch`, its attempt counted up. `canceled`: an operator
 * canceled its line.
 */
export type UnitState = 'awaiting_batch' | 'batched' | 'printed' | 'qc_passed' | 'qc_failed' | 'packed' | 'canceled';
export const UNIT_STATES: UnitState[] = [
  'awaiting_batch',
  'batched',
  'printed',
  'qc_passed',
  'qc_failed',
  'packed',
  'canceled',
];
/** States in which the unit's blank has been printed on (used up). */
export const PRINTED_STATES: UnitState[] = ['printed', 'qc_passed', 'qc_failed', 'packed'];

export interface UnitRow {
  id: string;
  order_id: string;
  line_index: number;
  unit_no: number;
  organization_id: string;
  state: UnitState;
  attempt: number;
  remake_reason: string | null;
  batch_id: string | null;
  order_created_at: Date;
  state_changed_at: Date;
  created_at: Date;
}

export type BatchStatus = 'open' | 'printed' | 'canceled';
export interface BatchRow {
  id: string;
  printer: string;
  jig: string;
  status: BatchStatus;
  bleed_mm: string;
  created_at: Date;
  printed_at: Date | null;
  updated_at: Date;
}

export interface SlotRow {
  batch_id: string;
  slot: string;
  unit_id: string;
  attempt: number;
}

export const unitReference = () => `Unit_${randomId()}`;
export const batchReference = () => `Batch_${randomId()}`;

/** The SQL of the floor: units of printed lines, batches and their slots, the units' history. */
export const floorRepo = {
  /** One unit per copy of each line, awaiting a batch; lines that have units already are left alone. */
  async createUnits(
    ex: Executor,
    o: { orderId: string; organizationId: string; orderCreatedAt: Date },
    lines: Array<{ index: number; copies: number }>,
    at: Date,
  ): Promise<number> {
    const rows: Array<[string, number, number]> = [];
    for (const l of lines) for (let n = 1; n <= l.copies; n++) rows.push([unitReference(), l.index, n]);
    if (rows.length === 0) return 0;
    const made = await ex.query<{ id: string }>(
      `INSERT INTO floor_units (id, order_id, line_index, unit_no, organization_id, state, order_created_at, state_changed_at, created_at)
       SELECT u.id, $1, u.li, u.n, $2, 'awaiting_batch', $3, $7, $7
       FROM unnest($4::text[], $5::int[], $6::int[]) AS u(id, li, n)
       ON CONFLICT (order_id, line_index, unit_no) DO NOTHING RETURNING id`,
      [
        o.orderId,
        o.organizationId,
        o.orderCreatedAt,
        rows.map((r) => r[0]),
        rows.map((r) => r[1]),
        rows.map((r) => r[2]),
        at,
      ],
    );
    await floorRepo.logEvents(
      ex,
      made.map((m) => m.id),
      null,
      'awaiting_batch',
      null,
      null,
      at,
    );
    return made.length;
  },

  async logEvents(
    ex: Executor,
    unitIds: string[],
    from: UnitState | null,
    to: UnitState,
    reason: string | null,
    batchId: string | null,
    at: Date,
  ): Promise<void> {
    if (unitIds.length === 0) return;
    await ex.query(
      `INSERT INTO floor_unit_events (unit_id, from_state, to_state, reason, batch_id, at)
       SELECT u, $2, $3, $4, $5, $6 FROM unnest($1::text[]) AS u`,
      [unitIds, from, to, reason, batchId, at],
    );
  },

  /**
   * Moves units from one state to another (only those in `from`), logs each change with its reason
   * and returns the units moved. The caller's transaction holds the change and its log together.
   */
  async move(
    ex: Executor,
    unitIds: string[],
    from: UnitState,
    to: UnitState,
    opts: { reason?: string | null; at: Date; batchId?: string | null },
  ): Promise<string[]> {
    if (unitIds.length === 0) return [];
    const moved = await ex.query<{ id: string }>(
      `UPDATE floor_units SET state = $3, state_changed_at = $4
       WHERE id = ANY($1::text[]) AND state = $2 RETURNING id`,
      [unitIds, from, to, opts.at],
    );
    const ids = moved.map((m) => m.id);
    await floorRepo.logEvents(ex, ids, from, to, opts.reason ?? null, opts.batchId ?? null, opts.at);
    return ids;
  },

  /**
   * A unit that failed QC (or whose blank proved damaged) goes back to await a later batch: its
   * attempt is counted up and the reason kept. Returns false when the unit is not in `from`.
   */
  async queueRemake(ex: Executor, unitId: string, from: UnitState[], reason: string, at: Date): Promise<boolean> {
    const rows = await ex.query<{ state: UnitState; batch_id: string | null }>(
      'SELECT state, batch_id FROM floor_units WHERE id = $1 FOR UPDATE',
      [unitId],
    );
    const was = rows[0];
    if (!was || !from.includes(was.state)) return false;
    await ex.query(
      `UPDATE floor_units SET state = 'awaiting_batch', attempt = attempt + 1, remake_reason = $2, batch_id = NULL,
              state_changed_at = $3 WHERE id = $1`,
      [unitId, reason, at],
    );
    await floorRepo.logEvents(ex, [unitId], was.state, 'awaiting_batch', reason, was.batch_id, at);
    return true;
  },

  /** Every unit of the lines not yet packed is canceled (an operator canceled the lines). */
  async cancelUnits(
    ex: Executor,
    orderId: string,
    lineIndexes: number[],
    reason: string,
    at: Date,
  ): Promise<Array<{ id: string; line_index: number; was: UnitState }>> {
    if (lineIndexes.length === 0) return [];
    const rows = await ex.query<{ id: string; line_index: number; was: UnitState }>(
      `UPDATE floor_units u SET state = 'canceled', state_changed_at = $3
       FROM floor_units w WHERE w.id = u.id AND u.order_id = $1 AND u.line_index = ANY($2::int[])
         AND u.state NOT IN ('packed', 'canceled')
       RETURNING u.id, u.line_index, w.state AS was`,
      [orderId, lineIndexes, at],
    );
    for (const s of new Set(rows.map((r) => r.was)))
      await floorRepo.logEvents(
        ex,
        rows.filter((r) => r.was === s).map((r) => r.id),
        s,
        'canceled',
        reason,
        null,
        at,
      );
    return rows;
  },

  async unit(ex: Executor, id: string): Promise<UnitRow | null> {
    const rows = await ex.query<UnitRow>('SELECT * FROM floor_units WHERE id = $1', [id]);
    return rows[0] ?? null;
  },
  async unitsOfOrders(ex: Executor, orderIds: string[]): Promise<UnitRow[]> {
    if (orderIds.length === 0) return [];
    return ex.query<UnitRow>(
      'SELECT * FROM floor_units WHERE order_id = ANY($1::text[]) ORDER BY order_id, line_index, unit_no',
      [orderIds],
    );
  },
  async unitsOfBatch(ex: Executor, batchId: string): Promise<Array<UnitRow & { slot: string }>> {
    return ex.query(
      `SELECT u.*, s.slot FROM batch_slots s JOIN floor_units u ON u.id = s.unit_id
       WHERE s.batch_id = $1 ORDER BY s.slot`,
      [batchId],
    );
  },

  async batch(ex: Executor, id: string, lock = false): Promise<BatchRow | null> {
    const rows = await ex.query<BatchRow>(`SELECT * FROM batches WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    return rows[0] ?? null;
  },
  async slots(ex: Executor, batchIds: string[]): Promise<SlotRow[]> {
    if (batchIds.length === 0) return [];
    return ex.query<SlotRow>('SELECT * FROM batch_slots WHERE batch_id = ANY($1::text[]) ORDER BY batch_id, slot', [
      batchIds,
    ]);
  },
  async setBatchStatus(ex: Executor, id: string, status: BatchStatus, at: Date): Promise<void> {
    await ex.query(
      `UPDATE batches SET status = $2, updated_at = $3, printed_at = CASE WHEN $2 = 'printed' THEN $3 ELSE printed_at END
       WHERE id = $1`,
      [id, status, at],
    );
  },

  /** Units awaiting a batch, oldest order first, with the product each is printed on. */
  async awaiting(ex: Executor): Promise<
    Array<{
      id: string;
      order_id: string;
      order_created_at: Date;
      state_changed_at: Date;
      attempt: number;
      product_id: string;
    }>
  > {
    return ex.query(
      `SELECT u.id, u.order_id, u.order_created_at, u.state_changed_at, u.attempt, l.product_id
       FROM floor_units u JOIN orderlines l ON l.order_id = u.order_id AND l.line_index = u.line_index
       WHERE u.state = 'awaiting_batch'
         -- a case held for want of a blank (unit_holds) waits until one is free
         AND NOT EXISTS (SELECT 1 FROM unit_holds h WHERE h.unit_id = u.id)
       ORDER BY u.order_created_at, u.order_id, u.line_index, u.unit_no`,
    );
  },
  /**
   * Of the units given, those still awaiting a batch, locked for the caller's transaction; one
   * batching at a time (the advisory lock), so no unit lands in two batches.
   */
  async lockAwaiting(ex: Executor, unitIds: string[]): Promise<Set<string>> {
    await ex.query("SELECT pg_advisory_xact_lock(hashtext('production.batching'))");
    if (unitIds.length === 0) return new Set();
    const rows = await ex.query<{ id: string }>(
      `SELECT id FROM floor_units WHERE id = ANY($1::text[]) AND state = 'awaiting_batch' FOR UPDATE`,
      [unitIds],
    );
    return new Set(rows.map((r) => r.id));
  },
  /** Writes batches with their slots; their units become `batched`, each change logged. */
  async insertBatches(
    ex: Executor,
    batches: Array<{
      id: string;
      printer: string;
      jig: string;
      bleedMm: number;
      slots: Array<{ slot: string; unitId: string; attempt: number }>;
    }>,
    at: Date,
  ): Promise<void> {
    if (batches.length === 0) return;
    await ex.query(
      `INSERT INTO batches (id, printer, jig, status, bleed_mm, created_at, updated_at)
       SELECT b.id, b.p, b.j, 'open', b.bl, $5, $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::numeric[]) AS b(id, p, j, bl)`,
      [
        batches.map((b) => b.id),
        batches.map((b) => b.printer),
        batches.map((b) => b.jig),
        batches.map((b) => b.bleedMm),
        at,
      ],
    );
    const slots = batches.flatMap((b) => b.slots.map((s) => ({ batchId: b.id, ...s })));
    const cols = [
      slots.map((s) => s.batchId),
      slots.map((s) => s.slot),
      slots.map((s) => s.unitId),
      slots.map((s) => s.attempt),
    ];
    await ex.query(
      `INSERT INTO batch_slots (batch_id, slot, unit_id, attempt)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[])`,
      cols,
    );
    await ex.query(
      `UPDATE floor_units u SET state = 'batched', batch_id = s.b, state_changed_at = $3
       FROM unnest($1::text[], $2::text[]) AS s(u, b) WHERE u.id = s.u`,
      [cols[2], cols[0], at],
    );
    await ex.query(
      `INSERT INTO floor_unit_events (unit_id, from_state, to_state, batch_id, at)
       SELECT s.u, 'awaiting_batch', 'batched', s.b, $3 FROM unnest($1::text[], $2::text[]) AS s(u, b)`,
      [cols[2], cols[0], at],
    );
  },
  /** Open batches, oldest first, with how many slots each fills. */
  async openBatches(ex: Executor, limit: number): Promise<Array<BatchRow & { units: number }>> {
    return ex.query(
      `SELECT b.*, (SELECT count(*)::int FROM batch_slots s WHERE s.batch_id = b.id) AS units
       FROM batches b WHERE b.status = 'open' ORDER BY b.created_at, b.id LIMIT $1`,
      [limit],
    );
  },

  /** What a batch's files are made from: each slot's unit, its line's product and artwork, the blank. */
  async batchContents(ex: Executor, batchId: string): Promise<BatchContentRow[]> {
    return ex.query<BatchContentRow>(
      `SELECT s.slot, u.id AS unit_id, u.order_id, u.line_index, u.unit_no, u.attempt, u.remake_reason, u.organization_id,
              l.product_id, l.image_id, l.quantity, p.name AS product_name, i.sku, st.code || '-' || o.order_number AS order_code
       FROM batch_slots s JOIN floor_units u ON u.id = s.unit_id
         JOIN orderlines l ON l.order_id = u.order_id AND l.line_index = u.line_index
         JOIN orders o ON o.id = u.order_id JOIN stores st ON st.id = o.store_id
         JOIN products p ON p.id = l.product_id LEFT JOIN items i ON i.id = p.item_id
       WHERE s.batch_id = $1 ORDER BY s.slot`,
      [batchId],
    );
  },
  async queueDocuments(ex: Executor, batchIds: string[], at: Date): Promise<void> {
    if (batchIds.length === 0) return;
    await ex.query(
      `INSERT INTO batch_documents (batch_id, kind, status, created_at, updated_at)
       SELECT b, k, 'pending', $2, $2 FROM unnest($1::text[]) AS b, unnest(ARRAY['print_file', 'pick_list', 'batch_sheet']) AS k
       ON CONFLICT (batch_id, kind) DO UPDATE SET status = 'pending', error = NULL, updated_at = $2`,
      [batchIds, at],
    );
  },
  async documents(ex: Executor, batchIds: string[]): Promise<BatchDocumentRow[]> {
    if (batchIds.length === 0) return [];
    return ex.query<BatchDocumentRow>(
      'SELECT * FROM batch_documents WHERE batch_id = ANY($1::text[]) ORDER BY batch_id, kind DESC',
      [batchIds],
    );
  },
  async documentReady(
    ex: Executor,
    batchId: string,
    kind: BatchDocumentKind,
    f: { blobKey: string; size: number; details: object },
    at: Date,
  ): Promise<void> {
    await ex.query(
      `UPDATE batch_documents SET status = 'ready', blob_key = $3, size = $4, details = $5, error = NULL, updated_at = $6
       WHERE batch_id = $1 AND kind = $2`,
      [batchId, kind, f.blobKey, f.size, JSON.stringify(f.details), at],
    );
  },
  async documentsFailed(ex: Executor, batchId: string, error: string, at: Date): Promise<void> {
    await ex.query(
      `UPDATE batch_documents SET status = 'failed', error = $2, updated_at = $3 WHERE batch_id = $1 AND status <> 'ready'`,
      [batchId, error.slice(0, 500), at],
    );
  },
};

export type BatchDocumentKind = 'print_file' | 'pick_list' | 'batch_sheet';
export const BATCH_DOCUMENT_KINDS: BatchDocumentKind[] = ['print_file', 'pick_list', 'batch_sheet'];

export interface BatchDocumentRow {
  batch_id: string;
  kind: BatchDocumentKind;
  status: 'pending' | 'ready' | 'failed';
  blob_key: string | null;
  size: number | null;
  details: Record<string, unknown>;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface BatchContentRow {
  slot: string;
  unit_id: string;
  order_id: string;
  line_index: number;
  unit_no: number;
  attempt: number;
  remake_reason: string | null;
  organization_id: string;
  product_id: string;
  image_id: string | null;
  quantity: number;
  product_name: string;
  sku: string | null;
  order_code: string;
}
