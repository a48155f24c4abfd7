import type { Executor } from '../../platform/db/index.ts';
import { ApiError, badRequest } from '../../platform/errors.ts';
import type { ProductionDeps } from './deps.ts';
import { type UnitState, floorRepo } from './floor-repo.ts';
import { productionRepo } from './repo.ts';
import {
  type PickingProblem,
  type QcReason,
  type RemakeReason,
  type ScannedUnit,
  stationsRepo as repo,
} from './stations-repo.ts';
import { parseUnitScan } from './unit-code.ts';

export const REMAKE_REASONS: Record<RemakeReason, string> = {
  misprint: 'Misprint',
  damaged_blank: 'Damaged blank',
  blank_damaged_at_picking: 'Blank damaged at picking',
  blank_missing_at_picking: 'Blank missing at picking',
};
export const QC_REASONS: QcReason[] = ['misprint', 'damaged_blank'];
export const PICKING_PROBLEMS: PickingProblem[] = ['blank_damaged_at_picking', 'blank_missing_at_picking'];

/** Where a case is, in the words a station uses when it refuses it. */
const WHERE: Record<UnitState, string> = {
  awaiting_batch: 'is not printed yet: it waits for a batch',
  batched: 'is not printed yet: its batch is on the way to the printer',
  printed: 'has not been through QC',
  qc_passed: 'passed QC already: take it to packing',
  qc_failed: 'failed QC and is being made again',
  packed: 'is packed already',
  canceled: 'was canceled: put it aside',
};

/** A refused scan: the station shows the message in large type and sounds its alarm. */
const refuse = (message: string) => new ApiError('scan_refused', message);

type StationsDeps = Pick<ProductionDeps, 'db' | 'clock' | 'catalog'> & {
  /** Ships one order as its parcel: the label through the carriers port, the packing slip. */
  ship: (orderId: string) => Promise<{ reference: string }>;
};

/** What is left of a parcel at the packing table: cases not here yet, items to add from the shelf. */
export interface PackProgress {
  orderReference: string;
  packed: number;
  missing: Array<{ unit: string; lineIndex: number; unitNo: number; product: string; why: string }>;
  fromShelf: Array<{ lineIndex: number; quantity: number; product: string; sku: string }>;
}

/** The scanned case, locked, in an order in production; a code that is no case is a 400. */
async function scanned(tx: Executor, raw: string): Promise<ScannedUnit> {
  const id = parseUnitScan(raw);
  if (!id) throw badRequest(`“${raw.trim().slice(0, 60)}” is not a case’s code (Unit_…)`);
  const u = await repo.unit(tx, id, true);
  if (!u) throw refuse(`No case ${id} on the floor`);
  if (u.order_status !== 'in_production' && u.state !== 'canceled')
    throw refuse(`${id} belongs to ${u.order_id}, which is ${u.order_status.replace('_', ' ')}`);
  return u;
}

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

async function packProgress(ex: Executor, orderId: string): Promise<PackProgress> {
  const [units, shelf] = await Promise.all([repo.unitsOfOrder(ex, orderId), repo.shelfLines(ex, orderId)]);
  const open = units.filter((u) => u.state !== 'canceled');
  return {
    orderReference: orderId,
    packed: open.filter((u) => u.state === 'packed').length,
    missing: open
      .filter((u) => u.state !== 'packed')
      .map((u) => ({
        unit: u.id,
        lineIndex: u.line_index,
        unitNo: u.unit_no,
        product: u.product_name,
        why: u.hold_message ?? WHERE[u.state].split(':')[0],
      })),
    fromShelf: shelf.map((l) => ({ lineIndex: l.line_index, quantity: l.open, product: l.product_name, sku: l.sku })),
  };
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
 * Pack: the case goes on the table. Once every case of the order is there, the order is marked
 * produced and ships; until then the answer lists what is missing.
 */
function packStation(deps: StationsDeps) {
  return async (raw: string) => {
    const packed = await deps.db.tx(async (tx) => {
      const u = await scanned(tx, raw);
      // A packed case of a parcel whose shipping failed: scanning it again ships the parcel.
      if (u.state === 'packed' && u.order_status === 'in_production') return { u, again: true };
      if (u.state !== 'qc_passed') throw refuse(`${u.id} ${WHERE[u.state]}`);
      await floorRepo.move(tx, [u.id], 'qc_passed', 'packed', { at: deps.clock.now(), batchId: u.batch_id });
      return { u, again: false };
    });
    const { u } = packed;
    const base = { unit: u.id, order: u.order_id, lineIndex: u.line_index, product: u.product_name };
    const progress = await packProgress(deps.db, u.order_id);
    if (progress.missing.length > 0) {
      if (packed.again) throw refuse(`${u.id} is packed already`);
      return { ...base, progress, shipment: null, shipError: null };
    }
    await productionRepo.markProduced(deps.db, u.organization_id, u.order_id, deps.clock.now());
    try {
      return { ...base, progress, shipment: (await deps.ship(u.order_id)).reference, shipError: null };
    } catch (err) {
      // The carrier refused or needs what a scan cannot give (a tracking number with CARRIER=manual):
      // the parcel waits under "Ready to ship"; a scan of one of its cases tries again.
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      return { ...base, progress, shipment: null, shipError: err.message };
    }
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
    /** What the packing table still needs for an order. */
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
