import type { Executor } from '../../platform/db/index.ts';
import { badRequest } from '../../platform/errors.ts';
import type { ProductionDeps } from './deps.ts';
import { floorRepo } from './floor-repo.ts';
import { type PackDeps, packProgress, packStation } from './pack.ts';
import { WHERE, refuse, scanned } from './scan.ts';
import {
  type PickingProblem,
  type QcReason,
  type RemakeReason,
  type ScannedUnit,
  stationsRepo as repo,
} from './stations-repo.ts';

export const REMAKE_REASONS: Record<RemakeReason, string> = {
  misprint: 'Misprint',
  damaged_blank: 'Damaged blank',
  blank_damaged_at_picking: 'Blank damaged at picking',
  blank_missing_at_picking: 'Blank missing at picking',
};
export const QC_REASONS: QcReason[] = ['misprint', 'damaged_blank'];
export const PICKING_PROBLEMS: PickingProblem[] = ['blank_damaged_at_picking', 'blank_missing_at_picking'];

type StationsDeps = Pick<ProductionDeps, 'db' | 'clock' | 'catalog'> & Pick<PackDeps, 'ship' | 'lockCombined'>;

/**
 * A new blank for a case made again (the factory's cost: a stock movement naming the reason, no
 * charge or claim for the partner), or a hold with the reason when none is free.
 */
async function takeBlank(deps: StationsDeps, tx: Executor, u: ScannedUnit, reason: RemakeReason) {
  const taken = await deps.catalog.replaceBlank(tx, {
    orderId: u.order_id,
    productId: u.product_id,
    reason: `${REMAKE_REASONS[reason]}: ${u.id} (line ${u.line_index}) made again at the factory's cost`,
  });
  const message = taken ? null : `No free ${u.sku} blank on the shelf: waits for stock`;
  if (message) await repo.hold(tx, { unitId: u.id, orgId: u.organization_id, reason, message }, deps.clock.now());
  else await repo.release(tx, u.id);
  return { taken, message };
}

/** QC: the case passes, or fails with a reason and is queued to be made again in a later batch. */
function qcStation(deps: StationsDeps) {
  return async (raw: string, verdict: QcReason | 'pass') => {
    if (verdict !== 'pass' && !QC_REASONS.includes(verdict))
      throw badRequest('verdict must be pass, misprint or damaged_blank');
    return deps.db.tx(async (tx) => {
      const u = await scanned(tx, raw);
      if (u.state === 'qc_failed' && u.hold_message) throw refuse(`${u.id} waits for a new blank: ${u.hold_message}`);
      if (u.state !== 'printed') throw refuse(`${u.id} ${WHERE[u.state]}`);
      const at = deps.clock.now();
      const base = { unit: u.id, order: u.order_id, lineIndex: u.line_index, product: u.product_name };
      if (verdict === 'pass') {
        await floorRepo.move(tx, [u.id], 'printed', 'qc_passed', { at, batchId: u.batch_id });
        return { ...base, result: 'passed' as const, remake: null };
      }
      await floorRepo.move(tx, [u.id], 'printed', 'qc_failed', { at, reason: verdict, batchId: u.batch_id });
      const blank = await takeBlank(deps, tx, u, verdict);
      if (blank.taken) await floorRepo.queueRemake(tx, u.id, ['qc_failed'], verdict, at);
      return { ...base, result: 'failed' as const, remake: blank };
    });
  };
}

/** Picking: a blank damaged or missing is replaced from stock at once, or the case leaves the batch, held. */
function pickingStation(deps: StationsDeps) {
  return async (raw: string, problem: PickingProblem) => {
    if (!PICKING_PROBLEMS.includes(problem))
      throw badRequest('problem must be blank_damaged_at_picking or blank_missing_at_picking');
    return deps.db.tx(async (tx) => {
      const u = await scanned(tx, raw);
      if (u.state !== 'batched' && u.state !== 'awaiting_batch')
        throw refuse(`${u.id} is past picking: it ${WHERE[u.state].replace(/^is /, 'is ')}`);
      if (u.hold_message) throw refuse(`${u.id} is held already: ${u.hold_message}`);
      const at = deps.clock.now();
      const blank = await takeBlank(deps, tx, u, problem);
      // Replaced at the jig: the new blank goes into the same slot. Held: the slot stays empty.
      if (blank.taken) await floorRepo.logEvents(tx, [u.id], u.state, u.state, problem, u.batch_id, at);
      else if (u.state === 'batched') await floorRepo.queueRemake(tx, u.id, ['batched'], problem, at);
      return { unit: u.id, order: u.order_id, product: u.product_name, replaced: blank.taken, message: blank.message };
    });
  };
}

/**
 * The scan stations of the floor (QC, picking problems, pack) over the floor's units. A failed case
 * takes a new blank from stock and is batched again; a case without a blank is held with the reason
 * and goes on once one is free (`retryHeld`, every minute and after stock arrives).
 */
export function productionStations(deps: StationsDeps) {
  return {
    qc: qcStation(deps),
    pickingProblem: pickingStation(deps),
    pack: packStation(deps),
    /** What the packing table still needs for the parcel an order is packed into. */
    progress: (orderId: string) => packProgress(deps.db, orderId),
    /** Held cases take a blank once one is free; holds of canceled cases are dropped. */
    async retryHeld(limit = 200): Promise<number> {
      let released = 0;
      for (const h of await repo.holds(deps.db, limit)) {
        released += await deps.db.tx(async (tx) => {
          const u = await repo.unit(tx, h.unit_id, true);
          if (!u || u.state === 'canceled' || u.order_status !== 'in_production') {
            await repo.release(tx, h.unit_id);
            return 0;
          }
          const blank = await takeBlank(deps, tx, u, h.reason);
          if (!blank.taken) return 0;
          if (u.state === 'qc_failed') await floorRepo.queueRemake(tx, u.id, ['qc_failed'], h.reason, deps.clock.now());
          return 1;
        });
      }
      return released;
    },
  };
}
