import type { Executor } from '../../platform/db/index.ts';
import { jobsRepo } from '../../platform/jobs/queue.ts';
import { activityRepo } from './activity-repo.ts';
import { CALLBACK_JOB } from './callback.ts';
import type { CallbackAttemptRow, OrderStatus } from './repo.ts';

/** How many orders of one status were placed on one UTC day (`YYYY-MM-DD`). */
export interface OrdersOnDay {
  day: string;
  status: OrderStatus;
  count: number;
}

/** What the partner overview shows of an organization's orders. */
export interface OrderActivity {
  /** Orders placed since the given instant, per UTC day and status. */
  perDay: OrdersOnDay[];
  /** Products (less canceled units) and shipping of the orders placed since, canceled orders left out. */
  spendCents: number;
  /** All orders of the organization, and those in production and shipped. */
  orders: number;
  inProduction: number;
  shipped: number;
}

/** One attempt of the store callback (the dashboard's order timeline). */
export interface CallbackAttempt {
  /** The callback job: one per change the store is told about. */
  jobId: number;
  /** The job's attempt number: it starts again at 1 for each change the store is told about. */
  attempt: number;
  at: Date;
  /** `not_sent`: the store had no callback URL any more when the job ran. */
  outcome: 'delivered' | 'failed' | 'not_sent';
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** One job of the store callback: queued, retrying, given up or done. */
export interface CallbackJob {
  id: number;
  status: 'pending' | 'running' | 'succeeded' | 'dead';
  attempts: number;
  lastError: string | null;
  runAt: Date;
  updatedAt: Date;
}

export async function orderActivity(ex: Executor, orgId: string, since: Date): Promise<OrderActivity> {
  const [perDay, spendCents, counts] = await Promise.all([
    activityRepo.ordersPerDay(ex, orgId, since),
    activityRepo.spendCents(ex, orgId, since),
    activityRepo.counts(ex, orgId),
  ]);
  return {
    perDay: perDay.map((r) => ({ day: r.day, status: r.status, count: r.n })),
    spendCents,
    orders: counts.orders,
    inProduction: counts.in_production,
    shipped: counts.shipped,
  };
}

export const callbackAttempt = (a: CallbackAttemptRow): CallbackAttempt => ({
  jobId: Number(a.job_id),
  attempt: a.attempt,
  at: a.at,
  outcome: a.outcome,
  responseStatus: a.response_status,
  error: a.error,
  durationMs: a.duration_ms,
});

/** The callback jobs of an order (succeeded ones are kept 7 days), oldest first. */
export async function callbackJobs(ex: Executor, orderId: string): Promise<CallbackJob[]> {
  const jobs = await jobsRepo.withPayload(ex, CALLBACK_JOB, 'orderId', orderId, 100);
  return jobs.map((j) => ({
    id: Number(j.id),
    status: j.status,
    attempts: j.attempts,
    lastError: j.last_error,
    runAt: j.run_at,
    updatedAt: j.updated_at,
  }));
}
