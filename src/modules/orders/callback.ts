import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Executor } from '../../platform/db/index.ts';
import { type JobRow, enqueue } from '../../platform/jobs/queue.ts';
import { PermanentJobError, type Worker } from '../../platform/jobs/worker.ts';
import { deliver, describeFailure } from '../../platform/http/targets.ts';
import type { OrdersDeps } from './deps.ts';
import { type CallbackAttemptRow, type OrderRow, ordersRepo } from './repo.ts';

export const CALLBACK_JOB = 'order.callback';

/**
 * The legacy order-updated notification, written in the transaction of the change. A store without
 * a callback URL gets nothing; the URL itself is read when the job runs, so a corrected URL is
 * used by the next retry.
 */
export async function enqueueOrderCallback(
  tx: Executor,
  clock: Clock,
  order: Pick<OrderRow, 'id' | 'organization_id'>,
  store: { callbackUrl: string | null },
): Promise<void> {
  if (!store.callbackUrl) return;
  await enqueue(
    tx,
    clock,
    CALLBACK_JOB,
    { orderId: order.id },
    { maxAttempts: null, organizationId: order.organization_id },
  );
}

/**
 * The configured URL with the service's parameters; on a name collision the service's value wins.
 * A parameter the service does not send this time (no custom identifier, no integrator) is no
 * collision: the partner's own value stays.
 */
export function callbackUrl(
  base: string,
  p: {
    environment: 'test' | 'prod';
    storeCode: string;
    orderNumber: number;
    orderReference: string;
    customIdentifier: string | null;
    viaStoreCode: string | null;
  },
): string {
  const url = new URL(base);
  const set = (name: string, value: string | null) => {
    if (value !== null) url.searchParams.set(name, value);
  };
  set('environment', p.environment);
  set('order_reference', `${p.storeCode}-${p.orderNumber}`);
  set('order_reference_v2', p.orderReference);
  set('store_code', p.storeCode);
  set('custom_reference', p.customIdentifier);
  set('via_store_code', p.viaStoreCode);
  // Deprecated aliases of the V1 names; partners may still read them.
  set('partner_reference', p.customIdentifier);
  set('partner_code', p.storeCode);
  set('via_partner_code', p.viaStoreCode);
  return url.toString();
}

/**
 * Each attempt is written once its HTTP call ended, in one statement, before the job itself is
 * marked done or failed: a crash during the call leaves no row, a crash after it leaves the row
 * and the job runs again (the store may be called twice; the callback only says "look again").
 */
export function registerCallbackJob(
  deps: Pick<OrdersDeps, 'db' | 'clock' | 'organization'> & { config: Readonly<Config>; worker: Worker },
): void {
  const { db, clock, config } = deps;
  deps.worker.register(CALLBACK_JOB, {
    pool: 'deliveries',
    // The spec promises a retry about every 5 minutes until it succeeds, rather than a back-off;
    // the handler gives up after CALLBACK_MAX_ATTEMPTS.
    backoffMs: () => config.callbackRetrySeconds * 1000,
    leaseMs: config.callbackTimeoutMs + 30_000,
    async run(payload: { orderId: string }, job: JobRow) {
      const order = await ordersRepo.order(db, null, payload.orderId);
      if (!order) return;
      const record = (a: Pick<CallbackAttemptRow, 'at' | 'outcome' | 'response_status' | 'error' | 'duration_ms'>) =>
        ordersRepo.insertCallbackAttempt(db, {
          ...a,
          organization_id: order.organization_id,
          order_id: order.id,
          job_id: job.id,
          attempt: job.attempts,
        });
      const store = await deps.organization.storeIn(db, order.organization_id, order.store_id);
      // The partner removed the URL after the change: the timeline says nothing was sent, and why.
      if (!store?.callbackUrl) {
        const error = 'the store had no callback URL any more';
        return record({ at: clock.now(), outcome: 'not_sent', response_status: null, error, duration_ms: 0 });
      }
      const url = callbackUrl(store.callbackUrl, {
        environment: config.env === 'production' ? 'prod' : 'test',
        storeCode: store.code,
        orderNumber: order.order_number,
        orderReference: order.id,
        customIdentifier: order.custom_identifier,
        viaStoreCode: order.via_store_code,
      });
      const at = clock.now();
      const res = await deliver(url, {
        method: 'GET',
        timeoutMs: config.callbackTimeoutMs,
        allowPrivate: config.allowPrivateTargets,
      });
      const ok = res.status !== null && res.status >= 200 && res.status <= 299;
      const error = ok ? null : describeFailure(res.status, res.error, 'the callback URL');
      const outcome = ok ? 'delivered' : 'failed';
      await record({ at, outcome, response_status: res.status, error, duration_ms: res.durationMs });
      // A receiver down for days is given up (CALLBACK_MAX_ATTEMPTS); the order page says so, with this error.
      if (error) throw job.attempts >= config.callbackMaxAttempts ? new PermanentJobError(error) : new Error(error);
    },
  });
}
