import { realNow } from '../../platform/clock.ts';
import { badRequest } from '../../platform/errors.ts';
import { jobsRepo } from '../../platform/jobs/queue.ts';
import type { TestClocksDeps } from './deps.ts';
import { addIsoDuration } from './duration.ts';
import { testClocksRepo as repo } from './repo.ts';

const TOPIC = 'test_clocks';
/** How long an advance waits for the jobs that fell due before answering `advancing`. */
const SETTLE_MS = 10_000;
/**
 * How far a clock may run ahead of real time. Advancing moves the organization's pending jobs
 * back by the same step, and PostgreSQL's timestamps end at 4713 BC: some 6,700 years back from
 * now. A bound well inside that keeps every job, and every date derived from the clock (a claim
 * window, a retention), storable and printed with a four-digit year.
 */
export const MAX_YEARS_AHEAD = 1000;

/** The latest time a test clock may show, from real time `now`. */
function latest(now: Date): Date {
  const out = new Date(now);
  out.setUTCFullYear(out.getUTCFullYear() + MAX_YEARS_AHEAD);
  return out;
}

export type TestClocksService = ReturnType<typeof testClocksService>;

export interface ClockView {
  frozen: boolean;
  now: string;
  /** `ready` once every job that fell due by the clock's time has run; `advancing` until then. */
  status: 'ready' | 'advancing';
}

/**
 * Test clocks (test environment only): an organization's frozen time, moved forward only by its
 * partner. Every `clock.now()` evaluated for the organization — in its requests and its jobs —
 * answers with it (through `ScopedClock`), and advancing brings the organization's queued jobs
 * forward by the same amount and runs the ones that fell due.
 */
export function testClocksService(deps: TestClocksDeps) {
  const { db, clock, worker, changes } = deps;
  let times = new Map<string, Date>();
  let loading: Promise<void> | null = null;

  changes.on(TOPIC, () => {
    loading = null;
  });

  /** Loads every clock once (the table holds one row per organization that uses one). */
  function ready(): Promise<void> {
    loading ??= repo.all(db).then(
      (rows) => {
        times = new Map(rows.map((r) => [r.organization_id, r.frozen_at]));
      },
      (err) => {
        loading = null;
        throw err;
      },
    );
    return loading;
  }

  async function view(orgId: string): Promise<ClockView> {
    await ready();
    const frozen = times.get(orgId);
    const due = await jobsRepo.dueCount(db, orgId, realNow(clock));
    return { frozen: !!frozen, now: (frozen ?? realNow(clock)).toISOString(), status: due > 0 ? 'advancing' : 'ready' };
  }

  /** Runs the organization's due jobs here until none is left or the settle time is up. */
  async function settle(orgId: string): Promise<void> {
    const until = Date.now() + SETTLE_MS;
    while (Date.now() < until) {
      const ran = await worker.runDue(8, orgId);
      if (ran === 0 && (await jobsRepo.dueCount(db, orgId, realNow(clock))) === 0) return;
      if (ran === 0) await new Promise((r) => setTimeout(r, 50));
    }
  }

  return {
    ready,
    /** The organization's frozen time, or null (real time); synchronous for `ScopedClock`. */
    timeOf: (orgId: string): Date | null => times.get(orgId) ?? null,
    view,

    async advance(orgId: string, input: { advanceBy?: string; to?: string }): Promise<ClockView> {
      if ((input.advanceBy === undefined) === (input.to === undefined))
        throw badRequest('body.clock takes exactly one of advanceBy and to');
      await ready();
      await db.tx(async (tx) => {
        const row = await repo.get(tx, orgId, true);
        const from = row?.frozen_at ?? realNow(clock);
        const field = input.advanceBy !== undefined ? 'body.clock.advanceBy' : 'body.clock.to';
        const to = input.advanceBy !== undefined ? addIsoDuration(from, input.advanceBy, field) : new Date(input.to!);
        const limit = latest(realNow(clock));
        if (Number.isNaN(to.getTime()) || to.getTime() > limit.getTime())
          throw badRequest(
            `A test clock goes at most ${MAX_YEARS_AHEAD} years past real time (${limit.toISOString()}): ${field} takes it beyond`,
            'clock_out_of_range',
          );
        if (to.getTime() < from.getTime())
          throw badRequest(
            `A test clock never goes backwards: body.clock.to lies before the clock's time ${from.toISOString()}`,
            'clock_backwards',
          );
        await repo.set(tx, orgId, to, realNow(clock));
        await jobsRepo.shiftPending(tx, orgId, to.getTime() - from.getTime());
        await changes.announce(tx, TOPIC);
      });
      loading = null;
      changes.changed(TOPIC);
      await ready();
      await settle(orgId);
      return view(orgId);
    },

    /** Back to real time; the organization's records keep the times they were given. */
    async remove(orgId: string): Promise<void> {
      await db.tx(async (tx) => {
        await repo.remove(tx, orgId);
        await changes.announce(tx, TOPIC);
      });
      loading = null;
      changes.changed(TOPIC);
      await ready();
    },
  };
}
