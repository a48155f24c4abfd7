import { ApiError } from '../../platform/errors.ts';
import { retryAfterSeconds } from '../../platform/ratelimit/index.ts';
import type { WebhooksDeps } from './deps.ts';
import { createDelivery } from './events.ts';
import { type EndpointRow, webhooksRepo as repo } from './repo.ts';
import { toDelivery } from './views.ts';

/** The test ping answers inside its request: a short time-out, and a few a minute. */
const TEST_PING_POLICY = { name: 'webhook-tests', quota: 10, windowSeconds: 60 };

type PingDeps = Pick<WebhooksDeps, 'db' | 'clock' | 'rateLimits' | 'events' | 'attempts' | 'config'>;

/**
 * Sends a `ping` now, inside the request, and returns the delivery with its first attempt. The
 * first job is queued for after the time-out as a safety net: if this process dies mid-attempt
 * the worker makes the attempt; otherwise that job finds it already made and does nothing.
 */
export async function sendTestPing(deps: PingDeps, orgId: string, row: EndpointRow) {
  const { db, clock } = deps;
  const budget = await deps.rateLimits.consume(`webhook-tests:${orgId}`, [TEST_PING_POLICY]);
  if (!budget.allowed) {
    const retry = retryAfterSeconds(budget.waitSeconds);
    throw new ApiError('rate_limited', `At most ${TEST_PING_POLICY.quota} test pings a minute; wait ${retry} s`, {
      headers: {
        'retry-after': String(retry),
      },
    });
  }
  const now = clock.now();
  const deliveryId = await db.tx(async (tx) => {
    const event = await deps.events.record(tx, {
      organizationId: orgId,
      type: 'ping',
      data: { webhookEndpoint: { reference: row.id, url: row.url } },
    });
    return createDelivery(tx, clock, {
      organizationId: orgId,
      endpointId: row.id,
      eventId: event.reference,
      firstAttemptAt: new Date(now.getTime() + deps.config.callbackTimeoutMs + 60_000),
    });
  });
  // Without an HTTP answer it answers no sooner than its time-out: a refused port and a
  // filtered one (whose connection only times out) must look alike.
  const timeoutMs = deps.config.webhookTestTimeoutMs;
  await deps.attempts.attempt(deliveryId, 1, { timeoutMs, minFailureMs: timeoutMs });
  return toDelivery((await repo.delivery(db, orgId, deliveryId))!);
}
