import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import { type Clock, realNow } from '../../platform/clock.ts';
import type { Db, Executor } from '../../platform/db/index.ts';
import { deliver, describeFailure } from '../../platform/http/targets.ts';
import { jobsRepo } from '../../platform/jobs/queue.ts';
import { type EventsService, endpointLane, enqueueAttempt } from './events.ts';
import { type Attempt, type EndpointRow, type EventRow, webhooksRepo as repo } from './repo.ts';
import type { SecretBox } from './secrets.ts';
import { signatureHeader } from './secrets.ts';

const HOUR = 3600_000;

/** No answer, 429 or 5xx: the receiver as a whole is down or overloaded, not this one event. */
const refused = (status: number | null) => status === null || status === 429 || status >= 500;

export type DeliveryAttempts = ReturnType<typeof deliveryAttempts>;

/** The Standard Webhooks body: `{type, timestamp, data}`; the id travels in `webhook-id`. */
export function webhookBody(event: EventRow): string {
  return JSON.stringify({ type: event.type, timestamp: event.created_at.toISOString(), data: event.data });
}

/** Secrets that sign now: the current one, and the previous one during the rotation overlap. */
function signingSecrets(box: SecretBox, e: EndpointRow, now: Date): string[] {
  const secrets = [box.open(e.secret_enc)];
  if (e.previous_secret_enc && e.previous_secret_expires_at && e.previous_secret_expires_at > now)
    secrets.push(box.open(e.previous_secret_enc));
  return secrets;
}

/** Posts the event, signed with each secret, to the endpoint; the outcome, never a throw. */
function sendSigned(
  deps: { clock: Clock; config: Pick<Config, 'callbackTimeoutMs' | 'allowPrivateTargets'> },
  url: string,
  event: EventRow,
  secrets: string[],
  opts: { timeoutMs?: number; minFailureMs?: number },
) {
  const { config } = deps;
  const body = webhookBody(event);
  // Receivers check the signed timestamp against their own clock: a test clock never signs.
  const sentAt = realNow(deps.clock);
  return deliver(url, {
    method: 'POST',
    body,
    timeoutMs: Math.min(opts.timeoutMs ?? config.callbackTimeoutMs, config.callbackTimeoutMs),
    minFailureMs: opts.minFailureMs,
    allowPrivate: config.allowPrivateTargets,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'pod-partner-api-webhooks/2',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signatureHeader(secrets, event.id, sentAt, body),
    },
  });
}

/**
 * One attempt of one delivery. The HTTP call runs outside any transaction; its outcome, the next
 * attempt's job and the endpoint's failure streak are then written in one transaction. The
 * attempt number makes a re-run of the same job (after a crash) a no-op once it was recorded.
 */
export function deliveryAttempts(deps: {
  db: Db;
  clock: Clock;
  config: Pick<
    Config,
    'callbackTimeoutMs' | 'allowPrivateTargets' | 'webhookRetrySchedule' | 'webhookDisableAfterHours'
  >;
  box: SecretBox;
  log: FastifyBaseLogger;
  /** Tells the organization that an endpoint was disabled (`webhook_endpoint.disabled`). */
  events: Pick<EventsService, 'record'>;
}) {
  const { db, clock, config, box } = deps;

  /** Disables the endpoint once and says so through an event (to the organization's other endpoints). */
  async function disable(tx: Executor, endpoint: EndpointRow, reason: string, now: Date) {
    if (!(await repo.disableEndpoint(tx, endpoint.id, reason, now))) return;
    deps.log.warn({ endpoint: endpoint.id, reason }, 'webhook endpoint disabled');
    await deps.events.record(tx, {
      organizationId: endpoint.organization_id,
      type: 'webhook_endpoint.disabled',
      data: { webhookEndpoint: { reference: endpoint.id, url: endpoint.url, disabledReason: reason } },
    });
  }

  /**
   * A refusing receiver backs off as a whole: the endpoint's other queued deliveries wait as long
   * as this one does, so a dead receiver costs one attempt per step of the schedule rather than
   * one per queued event.
   */
  async function backOff(tx: Executor, endpointId: string, seconds: number) {
    const wall = new Date(realNow(clock).getTime() + seconds * 1000);
    if ((await jobsRepo.deferLane(tx, endpointLane(endpointId), wall)) > 0)
      await repo.deferEndpointDeliveries(tx, endpointId, new Date(clock.now().getTime() + seconds * 1000));
  }

  async function giveUp(deliveryId: string, attempt: number, error: string): Promise<void> {
    const a: Attempt = { at: clock.now().toISOString(), responseStatus: null, durationMs: 0, error };
    await repo.recordAttempt(db, deliveryId, attempt, a, { status: 'failed', nextAttemptAt: null, now: clock.now() });
  }

  return {
    /**
     * `timeoutMs` shortens this attempt (the test ping answers inside its request); `minFailureMs`
     * is the least time an attempt without an HTTP answer takes (see `deliver`).
     */
    async attempt(
      deliveryId: string,
      attempt: number,
      opts: { timeoutMs?: number; minFailureMs?: number } = {},
    ): Promise<void> {
      const d = await repo.deliveryById(db, deliveryId);
      if (d?.status !== 'pending' || d.attempts.length !== attempt - 1) return;
      const [endpoint, event] = await Promise.all([
        repo.endpointById(db, d.endpoint_id),
        repo.eventById(db, d.event_id),
      ]);
      if (!event) return;
      if (!endpoint || endpoint.deleted_at) return giveUp(deliveryId, attempt, 'not sent: the endpoint was deleted');
      // A ping is the partner asking to test the endpoint: it goes out even while it is disabled.
      if (!endpoint.enabled && event.type !== 'ping') {
        return giveUp(
          deliveryId,
          attempt,
          `not sent: the endpoint is disabled${endpoint.disabled_reason ? ` (${endpoint.disabled_reason})` : ''}`,
        );
      }

      const at = clock.now();
      let secrets: string[];
      try {
        secrets = signingSecrets(box, endpoint, at);
      } catch {
        return giveUp(
          deliveryId,
          attempt,
          'not sent: the signing secret cannot be decrypted (SECRET_KEY changed?); rotate the secret',
        );
      }
      const result = await sendSigned(deps, endpoint.url, event, secrets, opts);
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      // Standard Webhooks: 410 Gone means the receiver is gone for good; nothing more is sent.
      const gone = result.status === 410;
      const error = ok ? null : describeFailure(result.status, result.error, 'the endpoint');
      const record: Attempt = {
        at: at.toISOString(),
        responseStatus: result.status,
        durationMs: result.durationMs,
        error,
      };
      const now = clock.now();
      const retryIn = config.webhookRetrySchedule[attempt - 1];
      const nextAt = ok || gone || retryIn === undefined ? null : new Date(now.getTime() + retryIn * 1000);

      await db.tx(async (tx) => {
        const recorded = await repo.recordAttempt(tx, deliveryId, attempt, record, {
          status: ok ? 'succeeded' : nextAt ? 'pending' : 'failed',
          nextAttemptAt: nextAt,
          now,
        });
        if (!recorded) return;
        if (ok) return repo.endpointSucceeded(tx, endpoint.id);
        const delivery = { id: deliveryId, organizationId: d.organization_id, endpointId: endpoint.id };
        if (nextAt) await enqueueAttempt(tx, clock, delivery, attempt + 1, nextAt);
        if (refused(result.status)) await backOff(tx, endpoint.id, retryIn ?? config.webhookRetrySchedule[0] ?? 5);
        const since = await repo.endpointFailed(tx, endpoint.id, at);
        if (gone) await disable(tx, endpoint, `Disabled on ${now.toISOString()}: the endpoint answered 410 Gone`, now);
        else if (since && now.getTime() - since.getTime() >= config.webhookDisableAfterHours * HOUR) {
          const reason = `Disabled on ${now.toISOString()}: every delivery failed since ${since.toISOString()} (last error: ${error})`;
          await disable(tx, endpoint, reason, now);
        }
      });
    },
  };
}
