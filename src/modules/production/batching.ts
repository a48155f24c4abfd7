import type { FloorConfig, JigConfig, SlotConfig } from './floor-config.ts';
import { matchesAny } from './floor-config.ts';

/** A unit awaiting a batch, with what decides where it fits. */
export interface BatchableUnit {
  id: string;
  orderId: string;
  /** Oldest orders first; remakes keep their order's age. */
  orderCreatedAt: Date;
  /** Since when it awaits a batch (a partial batch is made once its oldest unit waited long enough). */
  waitingSince: Date;
  attempt: number;
  /** null: the product has no device geometry or case type, so no jig can hold it. */
  fit: { caseType: string; deviceKey: string; widthMm: number; heightMm: number } | null;
}

export interface PlannedBatch {
  jig: JigConfig;
  caseType: string;
  /** slot id → unit */
  slots: Array<{ slot: SlotConfig; unit: BatchableUnit }>;
}

export interface BatchPlan {
  batches: PlannedBatch[];
  /** Units no jig holds, with why: they wait until the floor file has a jig for them. */
  unplaced: Array<{ unit: BatchableUnit; reason: string }>;
  /** Units left for a later batch: their batch would not be full and has not waited long enough. */
  waiting: number;
}

/** The pocket's size as the case stands upright in it (a quarter turn swaps the sides). */
const upright = (s: SlotConfig) => (s.rotation % 180 === 0 ? [s.widthMm, s.heightMm] : [s.heightMm, s.widthMm]);

/** The play around the case in the pocket, or null when it does not fit or would slide about. */
function play(j: JigConfig, s: SlotConfig, f: NonNullable<BatchableUnit['fit']>): number | null {
  const [w, h] = upright(s);
  const dw = w - f.widthMm;
  const dh = h - f.heightMm;
  if (dw < 0 || dh < 0 || dw > j.slackMm || dh > j.slackMm) return null;
  return dw + dh;
}

/** The jig whose pockets hold the case most snugly, or why none does. */
function jigFor(c: FloorConfig, u: BatchableUnit): JigConfig | string {
  const f = u.fit;
  if (!f) return 'the product has no device geometry or case type';
  let best: { j: JigConfig; p: number } | null = null;
  for (const j of c.jigs) {
    if (!j.caseTypes.includes(f.caseType as never)) continue;
    if (j.models && !matchesAny(f.deviceKey, j.models)) continue;
    for (const s of j.slots) {
      const p = play(j, s, f);
      if (p !== null && (!best || p < best.p)) best = { j, p };
    }
  }
  return best?.j ?? `no jig has a pocket for a ${f.caseType} case of ${f.widthMm} × ${f.heightMm} mm (${f.deviceKey})`;
}

interface Open {
  jig: JigConfig;
  caseType: string;
  free: SlotConfig[];
  placed: Array<{ slot: SlotConfig; unit: BatchableUnit }>;
}

/** Puts every unit of `units` into a free slot that holds it, all or none. */
function tryPlace(b: Open, units: BatchableUnit[]): boolean {
  if (units.length > b.free.length) return false;
  const taken: Array<{ slot: SlotConfig; unit: BatchableUnit }> = [];
  const free = [...b.free];
  for (const u of units) {
    const i = free.findIndex((s) => play(b.jig, s, u.fit!) !== null);
    if (i < 0) return false;
    taken.push({ slot: free[i], unit: u });
    free.splice(i, 1);
  }
  b.free = free;
  b.placed.push(...taken);
  return true;
}

/**
 * Plans batches: each unit goes to the jig whose pockets hold its case most snugly, and a batch
 * holds one jig and one case type (one print height and resolution on the printer). Orders are
 * taken oldest first; an order's units of a batch kind go into one batch where they fit (the first
 * batch with room, so a small younger order fills the gap an older large one left). An order with
 * more units than the jig has slots fills whole batches. A batch that is not full is made only when
 * `flush` is set or its oldest unit has waited `partialBatchAfterMinutes`.
 */
export function planBatches(c: FloorConfig, units: BatchableUnit[], o: { now: Date; flush: boolean }): BatchPlan {
  const unplaced: BatchPlan['unplaced'] = [];
  // kind (jig + case type) → order → units, in the order given (oldest first).
  const kinds = new Map<string, { jig: JigConfig; caseType: string; orders: Map<string, BatchableUnit[]> }>();
  const sorted = [...units].sort(
    (a, b) =>
      a.orderCreatedAt.getTime() - b.orderCreatedAt.getTime() ||
      (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0),
  );
  for (const u of sorted) {
    const j = jigFor(c, u);
    if (typeof j === 'string') {
      unplaced.push({ unit: u, reason: j });
      continue;
    }
    const key = `${j.id}\u0000${u.fit!.caseType}`;
    const kind = kinds.get(key) ?? { jig: j, caseType: u.fit!.caseType, orders: new Map() };
    kinds.set(key, kind);
    kind.orders.set(u.orderId, [...(kind.orders.get(u.orderId) ?? []), u]);
  }

  const batches: PlannedBatch[] = [];
  let waiting = 0;
  const cutoff = o.now.getTime() - c.partialBatchAfterMinutes * 60_000;
  for (const kind of kinds.values()) {
    const open: Open[] = [];
    const fresh = () => {
      const b: Open = { jig: kind.jig, caseType: kind.caseType, free: [...kind.jig.slots], placed: [] };
      open.push(b);
      return b;
    };
    for (const orderUnits of kind.orders.values()) {
      const size = kind.jig.slots.length;
      for (let i = 0; i < orderUnits.length; i += size) {
        const chunk = orderUnits.slice(i, i + size);
        if (open.some((b) => tryPlace(b, chunk))) continue;
        // Pockets of different sizes may refuse the chunk as a whole: then one by one.
        const b = fresh();
        for (const u of chunk) if (!tryPlace(b, [u]) && !open.some((x) => tryPlace(x, [u]))) tryPlace(fresh(), [u]);
      }
    }
    for (const b of open) {
      if (b.placed.length === 0) continue;
      const full = b.free.length === 0;
      const oldest = Math.min(...b.placed.map((p) => p.unit.waitingSince.getTime()));
      if (full || o.flush || oldest <= cutoff) {
        // Slots in the jig's order: the pick list and the bed read left to right, top to bottom.
        const order = new Map(kind.jig.slots.map((s, i) => [s.id, i]));
        b.placed.sort((x, y) => order.get(x.slot.id)! - order.get(y.slot.id)!);
        batches.push({ jig: b.jig, caseType: b.caseType, slots: b.placed });
      } else waiting += b.placed.length;
    }
  }
  return { batches, unplaced, waiting };
}
