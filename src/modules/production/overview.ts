import { dayIn, factoryCalendar } from './calendar.ts';
import type { ProductionDeps } from './deps.ts';
import type { UnitState } from './floor-repo.ts';
import { type OpenOrderRow, overviewRepo as repo } from './overview-repo.ts';
import { REMAKE_REASONS } from './stations.ts';
import type { RemakeReason } from './stations-repo.ts';

const DAY = 86_400_000;

/** Where an open order is on its way, from waiting to ready to ship. */
export const STAGES = [
  ['held', 'Held (see the queue for why)'],
  ['waiting', 'Waiting for production'],
  ['awaiting_batch', 'Waiting for a batch'],
  ['batched', 'In a batch, to print'],
  ['printed', 'Printed, to QC'],
  ['remake', 'Being made again'],
  ['packing', 'At packing'],
  ['ready', 'Ready to ship'],
] as const;
export type Stage = (typeof STAGES)[number][0];

/** An order is as far as its least advanced case. */
function stageOf(o: OpenOrderRow): Stage {
  if (o.status !== 'in_production') return o.held ? 'held' : 'waiting';
  const s = new Set<UnitState>(o.unit_states ?? []);
  if (o.produced || s.size === 0 || (s.size === 1 && s.has('packed'))) return 'ready';
  if (s.has('qc_failed')) return 'remake';
  for (const st of ['awaiting_batch', 'batched', 'printed'] as const) if (s.has(st)) return st;
  return 'packing';
}

/**
 * The floor at a glance: open orders by stage, those past the production promise, today's
 * throughput and the last weeks' cases and remakes by reason, in the factory's days.
 */
export function productionOverview(deps: Pick<ProductionDeps, 'db' | 'clock' | 'config'>) {
  const { db, clock, config } = deps;
  const zone = config.productionTimeZone;
  const calendar = factoryCalendar(zone, config.productionHolidays);
  return async (o: { days?: number; limit?: number } = {}) => {
    const now = clock.now();
    const span = o.days ?? 14;
    const days = Array.from({ length: span }, (_, i) => dayIn(new Date(now.getTime() - (span - 1 - i) * DAY), zone));
    const since = new Date(now.getTime() - (span + 1) * DAY);
    const [open, units, shipped] = await Promise.all([
      repo.openOrders(db, o.limit ?? 5000),
      repo.unitDays(db, since, zone),
      repo.shippedDays(db, since, zone),
    ]);
    const inSpan = units.filter((u) => days.includes(u.day));
    const count = (pick: (u: (typeof units)[number]) => boolean) => inSpan.filter(pick).reduce((n, u) => n + u.n, 0);
    const today = days[days.length - 1];
    const perDay = days.map((day) => ({
      day,
      printed: count((u) => u.day === day && u.to_state === 'printed'),
      passed: count((u) => u.day === day && u.to_state === 'qc_passed'),
      failed: Object.fromEntries(
        (['misprint', 'damaged_blank'] as const).map((r) => [
          r,
          count((u) => u.day === day && u.to_state === 'qc_failed' && u.reason === r),
        ]),
      ) as Record<'misprint' | 'damaged_blank', number>,
      pickingProblems: count((u) => u.day === day && (u.reason ?? '').startsWith('blank_')),
      packed: count((u) => u.day === day && u.to_state === 'packed' && !(u.reason ?? '').startsWith('blank_')),
      shipped: shipped.find((s) => s.day === day)?.n ?? 0,
    }));
    const checked = count((u) => u.to_state === 'qc_passed' || u.to_state === 'qc_failed');
    const picked = count((u) => u.to_state === 'printed') + count((u) => (u.reason ?? '').startsWith('blank_'));
    const remakes = (Object.keys(REMAKE_REASONS) as RemakeReason[]).map((reason) => {
      const n = count((u) => u.reason === reason);
      const atPicking = reason.startsWith('blank_');
      const of = atPicking ? picked : checked;
      return { reason, label: REMAKE_REASONS[reason], count: n, of, rate: of > 0 ? n / of : 0, atPicking };
    });
    const promise = config.productionPromiseDays;
    const late = open
      .map((r) => ({ r, due: calendar.addWorkingDays(r.created_at, promise) }))
      .filter(({ r, due }) => r.status !== 'preorder' && due.getTime() < now.getTime())
      .map(({ r, due }) => ({
        reference: r.id,
        organizationName: r.organization_name,
        placed: r.created_at.toISOString(),
        due: due.toISOString(),
        stage: stageOf(r),
        daysLate: Math.floor((now.getTime() - due.getTime()) / DAY),
      }));
    const stages = STAGES.map(([stage, label]) => ({
      stage,
      label,
      orders: open.filter((r) => r.status !== 'preorder' && stageOf(r) === stage).length,
    }));
    return {
      timeZone: zone,
      promiseDays: promise,
      preorders: open.filter((r) => r.status === 'preorder').length,
      stages,
      late,
      today: perDay.find((d) => d.day === today)!,
      days: perDay,
      remakes,
      checked,
    };
  };
}
