import type { Executor } from '../../platform/db/index.ts';
import { caseOutline } from '../catalog/geometry.ts';
import { type BatchableUnit, planBatches } from './batching.ts';
import type { ProductionDeps } from './deps.ts';
import type { FloorConfig } from './floor-config.ts';
import { batchReference, floorRepo as repo } from './floor-repo.ts';

export interface BatchingOutcome {
  batches: Array<{ reference: string; printer: string; jig: string; caseType: string; units: number }>;
  unplaced: Array<{ unitReference: string; orderReference: string; reason: string }>;
  /** Units left for a later batch (their batch would not be full yet). */
  waiting: number;
}

/**
 * Batching: the units awaiting a batch go into the slots of the printers' jigs (batching.ts has the
 * rules). Products are read before the transaction; in it, the units still awaiting are locked and
 * a batch with a unit that moved on meanwhile (canceled, batched by another node) is left out.
 */
export function unitBatching(
  deps: Pick<ProductionDeps, 'db' | 'clock' | 'catalog'>,
  floor: FloorConfig,
  /** In the batching's transaction: what each new batch needs (its files queued). */
  afterBatched: (tx: Executor, batchIds: string[]) => Promise<void>,
) {
  const { db, clock } = deps;

  async function batchable(): Promise<BatchableUnit[]> {
    const rows = await repo.awaiting(db);
    const shapes = await deps.catalog.productShapes([...new Set(rows.map((r) => r.product_id))]);
    const fits = new Map<string, BatchableUnit['fit']>();
    for (const [id, s] of shapes) {
      if (!s.device || !s.caseType || s.device.preliminary) continue;
      // The pocket holds the whole case: its outline, not its print area (a clear shell's is smaller).
      const spec = caseOutline(s.device, s.caseType);
      fits.set(id, {
        caseType: s.caseType.key,
        deviceKey: s.device.key,
        widthMm: spec.widthMm,
        heightMm: spec.heightMm,
      });
    }
    return rows.map((r) => ({
      id: r.id,
      orderId: r.order_id,
      orderCreatedAt: r.order_created_at,
      waitingSince: r.state_changed_at,
      attempt: r.attempt,
      fit: fits.get(r.product_id) ?? null,
    }));
  }

  return async function batchUnits(o: { flush: boolean }): Promise<BatchingOutcome> {
    const now = clock.now();
    const plan = planBatches(floor, await batchable(), { now, flush: o.flush });
    const printerOf = new Map(floor.jigs.map((j) => [j.id, j.printer]));
    const made = await db.tx(async (tx) => {
      const still = await repo.lockAwaiting(
        tx,
        plan.batches.flatMap((b) => b.slots.map((s) => s.unit.id)),
      );
      const batches = plan.batches
        .filter((b) => b.slots.every((s) => still.has(s.unit.id)))
        .map((b) => ({
          id: batchReference(),
          printer: printerOf.get(b.jig.id)!,
          jig: b.jig.id,
          caseType: b.caseType,
          bleedMm: floor.bleedMm,
          slots: b.slots.map((s) => ({ slot: s.slot.id, unitId: s.unit.id, attempt: s.unit.attempt })),
        }));
      await repo.insertBatches(tx, batches, now);
      await afterBatched(
        tx,
        batches.map((b) => b.id),
      );
      return batches;
    });
    return {
      batches: made.map((b) => ({
        reference: b.id,
        printer: b.printer,
        jig: b.jig,
        caseType: b.caseType,
        units: b.slots.length,
      })),
      unplaced: plan.unplaced.map((u) => ({
        unitReference: u.unit.id,
        orderReference: u.unit.orderId,
        reason: u.reason,
      })),
      waiting: plan.waiting,
    };
  };
}
