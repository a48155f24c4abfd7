import type { Clock } from '../../platform/clock.ts';
import { type Db, type Executor, retriedOnConflict } from '../../platform/db/index.ts';
import { ApiError } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import { type UnitState, floorRepo } from './floor-repo.ts';
import { type ParcelRow, parcelsRepo } from './parcels-repo.ts';
import { productionRepo } from './repo.ts';
import { WHERE, refuse, scanned } from './scan.ts';
import { type ScannedUnit, stationsRepo as repo } from './stations-repo.ts';
import { parseUnitScan } from './unit-code.ts';

export interface PackDeps {
  db: Db;
  clock: Clock;
  /**
   * Ships the orders as one parcel, in the scan's transaction: the label through the carriers
   * port, the packing slip. A refusal (ApiError) leaves the transaction usable.
   */
  ship: (tx: Executor, orderIds: string[]) => Promise<{ reference: string }>;
  /** The store's combined-parcel lock, the one shipping takes too (before any order row). */
  lockCombined: (tx: Executor, storeId: string) => Promise<void>;
}

/** A case of the parcel, on the table (`packed`) or not yet, with where it is. */
export interface ParcelCase {
  unit: string;
  orderReference: string;
  lineIndex: number;
  unitNo: number;
  product: string;
  packed: boolean;
  why: string | null;
}

/**
 * What is left of a parcel at the packing table: its orders (one dropship order, or the combined
 * orders of one store), every case with whether it is here, the cases not here yet, and the items
 * to add from the shelf.
 */
export interface PackProgress {
  /** `Parcel_…` for combined orders packed together; null for a dropship order, its own parcel. */
  parcel: string | null;
  /** The scanned case's order. */
  orderReference: string;
  orders: string[];
  packed: number;
  cases: ParcelCase[];
  missing: Array<Omit<ParcelCase, 'packed' | 'why'> & { why: string }>;
  fromShelf: Array<{ orderReference: string; lineIndex: number; quantity: number; product: string; sku: string }>;
}

/** Where a case not on the table is, where the stations' refusal says it otherwise. */
const MISSING: Partial<Record<UnitState, string>> = { qc_passed: 'passed QC, not on the table yet' };

/**
 * The combined parcel a case of a combined order goes into: the one its order is in, else the
 * store's open parcel (the order joins it; it is on the table), else a new one with every combined
 * order of the store in production. An open parcel whose orders all left (shipped or canceled on
 * their own) is closed and a new one opened.
 */
async function parcelFor(deps: PackDeps, tx: Executor, u: ScannedUnit, at: Date): Promise<ParcelRow | null> {
  if (u.shipping_kind !== 'combined') return null;
  await deps.lockCombined(tx, u.store_id);
  const mine = await parcelsRepo.openOfOrder(tx, u.order_id);
  if (mine) return mine;
  const open = await parcelsRepo.openOfStore(tx, u.store_id);
  if (open && (await parcelsRepo.liveOrders(tx, open.id)).length > 0) {
    await parcelsRepo.addOrder(tx, open.id, u.order_id);
    return open;
  }
  if (open) await parcelsRepo.close(tx, open.id, null, at);
  const id = newReference('Parcel');
  await parcelsRepo.open(tx, { id, orgId: u.organization_id, storeId: u.store_id, orderId: u.order_id }, at);
  return parcelsRepo.openOfStore(tx, u.store_id);
}

async function progressOf(ex: Executor, orderId: string, parcelId: string | null): Promise<PackProgress> {
  const orders = parcelId ? await parcelsRepo.liveOrders(ex, parcelId) : [orderId];
  // One after the other: in the scan's transaction they share one connection.
  const units = await repo.unitsOfOrders(ex, orders);
  const shelf = await repo.shelfLines(ex, orders);
  const cases = units
    .filter((u) => u.state !== 'canceled')
    .map(
      (u): ParcelCase => ({
        unit: u.id,
        orderReference: u.order_id,
        lineIndex: u.line_index,
        unitNo: u.unit_no,
        product: u.product_name,
        packed: u.state === 'packed',
        why: u.state === 'packed' ? null : (u.hold_message ?? MISSING[u.state] ?? WHERE[u.state].split(':')[0]),
      }),
    );
  return {
    parcel: parcelId,
    orderReference: orderId,
    orders,
    packed: cases.filter((c) => c.packed).length,
    cases,
    missing: cases.filter((c) => !c.packed).map(({ packed: _, why, ...c }) => ({ ...c, why: why ?? '' })),
    fromShelf: shelf.map((l) => ({
      orderReference: l.order_id,
      lineIndex: l.line_index,
      quantity: l.open,
      product: l.product_name,
      sku: l.sku,
    })),
  };
}

/** What the packing table still needs for the parcel an order is packed into. */
export async function packProgress(db: Db, orderId: string): Promise<PackProgress> {
  const parcel = await parcelsRepo.openOfOrder(db, orderId);
  return progressOf(db, orderId, parcel?.id ?? null);
}

/**
 * The packing table's lock, taken before the case's and its order's rows: a combined case's store
 * (every parcel of the store is decided one scan at a time, and shipped under the same lock by an
 * operator too). A dropship parcel is its order, whose row `scanned` locks. Held until the scan's
 * transaction ends, shipping included.
 */
async function lockTable(deps: PackDeps, tx: Executor, raw: string): Promise<void> {
  const id = parseUnitScan(raw);
  const u = id ? await repo.unit(tx, id) : null;
  if (u?.shipping_kind === 'combined') await deps.lockCombined(tx, u.store_id);
}

/**
 * Pack: the case goes on the table, into its parcel. Once every case of the parcel is there (of
 * every order in it), its orders are marked produced and ship as one shipment; until then the
 * answer lists every case and what is missing. The scan runs in one transaction under the parcel's
 * lock, shipping included: two last cases scanned at once are decided one after the other, and a
 * scan that waited for a parcel that shipped meanwhile is answered as a repeated scan.
 */
export function packStation(deps: PackDeps) {
  return (raw: string) =>
    retriedOnConflict(() =>
      deps.db.tx(async (tx) => {
        const now = deps.clock.now();
        await lockTable(deps, tx, raw);
        const u = await scanned(tx, raw);
        const parcel = await parcelFor(deps, tx, u, now);
        // A packed case of a parcel whose shipping failed: scanning it again ships the parcel.
        const again = u.state === 'packed' && u.order_status === 'in_production';
        if (!again) {
          if (u.state !== 'qc_passed') throw refuse(`${u.id} ${WHERE[u.state]}`);
          await floorRepo.move(tx, [u.id], 'qc_passed', 'packed', { at: now, batchId: u.batch_id });
        }
        const base = { unit: u.id, order: u.order_id, lineIndex: u.line_index, product: u.product_name };
        const progress = await progressOf(tx, u.order_id, parcel?.id ?? null);
        if (progress.missing.length > 0) {
          if (again) throw refuse(`${u.id} is packed already`);
          return { ...base, progress, shipment: null, shipError: null };
        }
        for (const orderId of progress.orders) await productionRepo.markProduced(tx, u.organization_id, orderId, now);
        await tx.query('SAVEPOINT pack_ship');
        try {
          const shipment = (await deps.ship(tx, progress.orders)).reference;
          if (parcel) await parcelsRepo.close(tx, parcel.id, shipment, now);
          return { ...base, progress, shipment, shipError: null };
        } catch (err) {
          // The carrier refused or needs what a scan cannot give (a tracking number with CARRIER=manual):
          // the parcel waits under "Ready to ship", packed and produced; a scan of one of its cases tries again.
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          await tx.query('ROLLBACK TO SAVEPOINT pack_ship');
          return { ...base, progress, shipment: null, shipError: err.message };
        }
      }),
    );
}
