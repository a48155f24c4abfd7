import { ApiError } from '../../platform/errors.ts';
import type { Executor } from '../../platform/db/index.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import type { OrderFacts } from '../orders/service.ts';
import { factoryCalendar } from './calendar.ts';
import { nextCutoff } from './cutoffs.ts';
import type { ProductionDeps } from './deps.ts';
import { type HoldReason, type LineNeed, type ReleaseCandidate, holdsRepo as repo } from './holds-repo.ts';

/** Every minute: `immediate` releases every order due; cut-offs look again at the held ones. */
export const RELEASE_JOB = 'production.release';
/** At each cut-off time: the orders placed up to it go into production. */
export const CUTOFF_JOB = 'production.cutoff';
/** Asked for by another module when a hold's reason may have cleared (a top-up, goods received). */
export const RECHECK_JOB = 'production.recheck_holds';

const MINUTE = 60_000;
const CHUNK = 200;

export interface ReleaseOutcome {
  released: string[];
  held: Array<{ orderReference: string; reason: HoldReason; message: string }>;
}

type Judged = { reason: HoldReason; message: string } | null;

/** Why the order cannot go in now, or null; takes its blanks from `free` when it can. */
function judge(o: ReleaseCandidate, lines: LineNeed[], free: Map<string, number>): Judged {
  const open = lines.filter((l) => l.open > 0);
  if (o.status === 'preorder') {
    const waiting = [...new Set(open.filter((l) => l.awaiting_launch).map((l) => l.product_name))];
    return {
      reason: 'preorder',
      message: `Pre-order: waits for ${waiting.length ? waiting.join(', ') : 'its products'} to launch and arrive in stock`,
    };
  }
  const need = new Map<string, { sku: string; n: number }>();
  for (const l of open) {
    const e = need.get(l.item_id) ?? { sku: l.sku, n: 0 };
    e.n += l.open;
    need.set(l.item_id, e);
  }
  const short = [...need].filter(([item, e]) => (free.get(item) ?? 0) < e.n);
  if (short.length > 0)
    return {
      reason: 'out_of_stock',
      message: `Blanks out of stock: ${short.map(([item, e]) => `${e.sku} needs ${e.n}, ${Math.max(0, free.get(item) ?? 0)} free on the shelf`).join('; ')}`,
    };
  for (const [item, e] of need) free.set(item, (free.get(item) ?? 0) - e.n);
  return null;
}

/** A hold found again in the transaction that was to start the order. */
class HeldAtLaunch extends Error {
  constructor(readonly why: NonNullable<Judged>) {
    super(why.message);
  }
}

/**
 * The holds judged again inside the transaction that starts the order, after it is locked: a top-up
 * undone, a line waiting for its launch again, or blanks another start took since the sweep read the
 * shelf keep it held. The items' rows are locked first, so two starts that need the same blanks
 * take turns and the second sees the first in production. (The prepaid balance is checked by the
 * charge in the same transaction.)
 */
async function recheckInTx(tx: Executor, order: Pick<OrderFacts, 'id' | 'organizationId' | 'status' | 'createdAt'>) {
  const lines = await repo.needs(tx, [order.id]);
  const items = [...new Set(lines.filter((l) => l.open > 0).map((l) => l.item_id))];
  await repo.lockItems(tx, items);
  const candidate: ReleaseCandidate = {
    id: order.id,
    organization_id: order.organizationId,
    created_at: order.createdAt,
    status: order.status === 'preorder' ? 'preorder' : 'pending',
  };
  const why = judge(candidate, lines, await repo.shelf(tx, items));
  if (why) throw new HeldAtLaunch(why);
}

/**
 * The release to production (PRODUCTION_RELEASE): orders due go in oldest first unless something
 * holds them (a prepaid account without the balance, a pre-order, blanks not on the shelf). Each
 * hold is written with its reason; every release looks at the held orders again, so an order moves
 * on by itself when its reason clears.
 */
export function productionRelease(deps: Pick<ProductionDeps, 'db' | 'clock' | 'config' | 'orders'>) {
  const { db, clock, config } = deps;
  const policy = config.productionRelease;
  const calendar = factoryCalendar(config.productionTimeZone, config.productionHolidays);
  /** Cut-offs fall on the factory's working days: orders placed on a closed day go in at the next one. */
  const nextOpenCutoff = (at: Date) =>
    policy.mode === 'cutoffs' ? nextCutoff(at, policy.times, config.productionTimeZone, calendar.isWorkingDay) : at;

  async function release(order: ReleaseCandidate, free: Map<string, number>, lines: LineNeed[], out: ReleaseOutcome) {
    const before = new Map(free);
    let why = judge(order, lines, free);
    if (!why) {
      try {
        await deps.orders.startProduction(null, order.id, recheckInTx);
        out.released.push(order.id);
        return;
      } catch (err) {
        // The blanks it would have taken stay free for the next order.
        for (const [k, v] of before) free.set(k, v);
        if (err instanceof ApiError && err.code === 'order_not_pending') return; // started or canceled meanwhile
        why =
          err instanceof HeldAtLaunch
            ? err.why
            : err instanceof ApiError && err.code === 'insufficient_balance'
              ? { reason: 'insufficient_balance', message: `Prepaid account without the balance: ${err.message}` }
              : { reason: 'release_failed', message: String((err as Error).message ?? err).slice(0, 500) };
      }
    }
    await repo.hold(db, { order_id: order.id, organization_id: order.organization_id, ...why }, clock.now());
    out.held.push({ orderReference: order.id, ...why });
  }

  /** Releases the orders in scope, oldest first, in chunks. */
  async function sweep(scope: { heldOnly: boolean; createdBefore: Date | null }): Promise<ReleaseOutcome> {
    const out: ReleaseOutcome = { released: [], held: [] };
    await repo.dropSettled(db);
    const free = new Map<string, number>();
    let after: { at: Date; id: string } | null = null;
    for (;;) {
      const batch = await repo.candidates(db, { ...scope, after, limit: CHUNK });
      if (batch.length === 0) break;
      const last = batch[batch.length - 1];
      after = { at: last.created_at, id: last.id };
      const needs = await repo.needs(
        db,
        batch.map((o) => o.id),
      );
      const unknown = [...new Set(needs.map((l) => l.item_id))].filter((i) => !free.has(i));
      for (const [item, n] of await repo.shelf(db, unknown)) free.set(item, n);
      const byOrder = new Map<string, LineNeed[]>();
      for (const l of needs) byOrder.set(l.order_id, [...(byOrder.get(l.order_id) ?? []), l]);
      for (const o of batch) await release(o, free, byOrder.get(o.id) ?? [], out);
      if (batch.length < CHUNK) break;
    }
    return out;
  }

  const job = (tx: Executor, kind: string, payload: object, runAt: Date, dedupeKey?: string) =>
    enqueue(tx, clock, kind, payload, { runAt, dedupeKey, maxAttempts: 3, organizationId: null });

  return {
    policy,
    /** The policy as the console and the operator API show it. */
    describe() {
      return {
        mode: policy.mode,
        ...(policy.mode === 'cutoffs'
          ? {
              cutoffs: policy.times,
              timeZone: config.productionTimeZone,
              nextCutoff: nextOpenCutoff(clock.now()).toISOString(),
            }
          : {}),
      };
    },
    /** Starts the chains of release jobs (server and worker start-up); nothing in `manual`. */
    async schedule(at = clock.now()): Promise<void> {
      if (policy.mode === 'manual') return;
      const minute = new Date(Math.floor(at.getTime() / MINUTE) * MINUTE);
      await job(db, RELEASE_JOB, {}, at, `${RELEASE_JOB}:${minute.toISOString()}`);
      if (policy.mode === 'cutoffs') {
        const next = nextOpenCutoff(at);
        await job(db, CUTOFF_JOB, { cutoff: next.toISOString() }, next, `${CUTOFF_JOB}:${next.toISOString()}`);
      }
    },
    /** The minute job: the next minute is booked first, so a failing sweep never ends the chain. */
    async minute(): Promise<ReleaseOutcome> {
      const next = new Date((Math.floor(clock.now().getTime() / MINUTE) + 1) * MINUTE);
      await job(db, RELEASE_JOB, {}, next, `${RELEASE_JOB}:${next.toISOString()}`);
      return sweep({ heldOnly: policy.mode !== 'immediate', createdBefore: null });
    },
    /** The cut-off job: orders placed up to the cut-off go in; the next cut-off is booked. */
    async cutoff(at: Date): Promise<ReleaseOutcome> {
      if (policy.mode !== 'cutoffs') return { released: [], held: [] };
      const next = nextOpenCutoff(at);
      await job(db, CUTOFF_JOB, { cutoff: next.toISOString() }, next, `${CUTOFF_JOB}:${next.toISOString()}`);
      return sweep({ heldOnly: false, createdBefore: at });
    },
    /** Looks at every held order again now (nothing in `manual`: no order is held there). */
    async recheck(): Promise<ReleaseOutcome> {
      if (policy.mode === 'manual') return { released: [], held: [] };
      return sweep({ heldOnly: true, createdBefore: null });
    },
    /**
     * For other modules, in their transaction: something that held orders may have cleared (a
     * prepaid top-up, goods received). The held orders are looked at again once it commits.
     */
    async reevaluateHolds(tx: Executor): Promise<void> {
      if (policy.mode === 'manual') return;
      await job(tx, RECHECK_JOB, {}, clock.now());
    },
  };
}
