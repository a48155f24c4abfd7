import type { Clock } from '../../platform/clock.ts';
import type { Executor } from '../../platform/db/index.ts';
import { newReference } from '../../platform/ids.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import type { StorefrontsDeps } from './deps.ts';
import { type ConnectionRow, type InboxRow, type OperationRow, storefrontsRepo as repo } from './repo.ts';
import { RetryLater, ShopifyRefused, type ShopifyGraphql, shopifyGraphql, waitForCost } from './shopify/client.ts';

export const OPERATION_JOB = 'storefronts.operation';
export const REDACT_JOB = 'storefronts.redact';

/** Attempts before an operation is shown as failed (a person can retry it from the store's page). */
export const MAX_ATTEMPTS = 8;
/** Below this many points left in Shopify's bucket the store's next call waits for them to refill. */
const RESERVE_POINTS = 100;

export interface OperationInput {
  kind: string;
  subject: string;
  payload: Record<string, unknown>;
}

export type OperationHandler = (ctx: {
  op: OperationRow;
  conn: ConnectionRow;
  gql: ShopifyGraphql;
}) => Promise<string | void>;

/** The job of an operation's next attempt, in the caller's transaction. */
async function scheduleAttempt(
  tx: Executor,
  clock: Clock,
  op: Pick<OperationRow, 'id' | 'organization_id'>,
  runAt?: Date,
): Promise<void> {
  await enqueue(
    tx,
    clock,
    OPERATION_JOB,
    { operationId: op.id },
    {
      organizationId: op.organization_id,
      runAt,
      // One job per attempt: a retry from the dashboard or a reschedule never collides with the last.
      dedupeKey: `${OPERATION_JOB}:${op.id}:${newReference('Attempt')}`,
      maxAttempts: 3,
    },
  );
}

/**
 * Calls to a shop, one job per operation, through the jobs table and per store: a throttled or
 * unreachable shop pauses only its own operations (the job is rescheduled, it holds no worker slot),
 * Shopify's Retry-After and cost bucket set the wait, and an operation that keeps failing is marked
 * failed for a person to see and retry.
 */
export function operations(deps: StorefrontsDeps) {
  const { db, clock } = deps;
  const handlers = new Map<string, OperationHandler>();
  /** What an operation's subject shows when the operation fails for good (a publication: failed). */
  const onFailed = new Map<string, (op: OperationRow) => Promise<void>>();
  async function fail(op: OperationRow, message: string) {
    await repo.finishOperation(db, op.id, 'failed', message, clock.now());
    await onFailed.get(op.kind)?.(op);
  }

  const schedule = (tx: Executor, op: Pick<OperationRow, 'id' | 'organization_id'>, runAt?: Date) =>
    scheduleAttempt(tx, clock, op, runAt);

  async function later(op: OperationRow, conn: ConnectionRow, err: RetryLater, gql: ShopifyGraphql | null) {
    const at = new Date(clock.now().getTime() + err.afterMs);
    await db.tx(async (tx) => {
      await repo.setThrottle(tx, conn.store_id, gql?.throttle ?? conn.throttle, at);
      if (op.attempts + 1 < MAX_ATTEMPTS) {
        await repo.noteAttempt(tx, op.id, err.message, clock.now());
        await schedule(tx, op, at);
      }
    });
    if (op.attempts + 1 >= MAX_ATTEMPTS) await fail(op, `${err.message}; gave up after ${MAX_ATTEMPTS} attempts`);
  }

  async function run(operationId: string): Promise<void> {
    const op = await repo.operation(db, operationId);
    if (!op || op.status !== 'queued') return;
    const conn = await repo.connectionOfStore(db, op.store_id);
    const skip = !conn
      ? 'the store is not connected'
      : conn.status === 'disconnected'
        ? 'the store was disconnected'
        : conn.status === 'demo'
          ? 'the demo shop has no live Shopify store behind it'
          : null;
    if (skip || !conn?.token_sealed) {
      await repo.finishOperation(db, op.id, 'skipped', skip ?? 'no access token', clock.now());
      return;
    }
    const now = clock.now();
    if (conn.paused_until && conn.paused_until > now) {
      await db.tx((tx) => schedule(tx, op, conn.paused_until!));
      return;
    }
    const handler = handlers.get(op.kind);
    if (!handler) return fail(op, `unknown operation ${op.kind}`);
    let gql: ShopifyGraphql | null = null;
    try {
      gql = shopifyGraphql(conn.shop_domain, deps.box.open(conn.token_sealed), deps.fetch);
      const note = await handler({ op, conn, gql });
      const t = gql.throttle;
      const pause =
        t && t.currentlyAvailable < RESERVE_POINTS
          ? new Date(clock.now().getTime() + waitForCost(t, RESERVE_POINTS))
          : null;
      await db.tx(async (tx) => {
        await repo.finishOperation(tx, op.id, 'done', note || null, clock.now());
        if (t) await repo.setThrottle(tx, conn.store_id, t, pause);
      });
    } catch (err) {
      if (err instanceof RetryLater) return later(op, conn, err, gql);
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof ShopifyRefused || op.attempts + 1 >= MAX_ATTEMPTS) return fail(op, message);
      await db.tx(async (tx) => {
        await repo.noteAttempt(tx, op.id, message, clock.now());
        await schedule(tx, op, new Date(clock.now().getTime() + 5000 * 2 ** op.attempts));
      });
    }
  }

  return {
    handle(kind: string, handler: OperationHandler, failed?: (op: OperationRow) => Promise<void>) {
      handlers.set(kind, handler);
      if (failed) onFailed.set(kind, failed);
    },
    /** Queues an operation in the caller's transaction. */
    async enqueue(tx: Executor, storeId: string, orgId: string, input: OperationInput): Promise<string> {
      const id = newReference('ShopifyOperation');
      await repo.insertOperation(tx, {
        id,
        store_id: storeId,
        organization_id: orgId,
        kind: input.kind,
        subject: input.subject,
        payload: input.payload,
        status: 'queued',
        created_at: clock.now(),
      });
      await schedule(tx, { id, organization_id: orgId });
      return id;
    },
    run,
    /** A failed operation queued again from the dashboard; false when it is not failed (or not the store's). */
    async retry(storeId: string, id: string): Promise<boolean> {
      const ok = await db.tx(async (tx) => {
        const op = await repo.requeue(tx, storeId, id, clock.now());
        if (op) await schedule(tx, op);
        return op !== null;
      });
      if (ok) deps.worker.nudge();
      return ok;
    },
    /** The rest of a customer's redaction, once their orders' claim window has closed. */
    async redactLater(row: InboxRow, at: Date) {
      await enqueue(
        db,
        clock,
        REDACT_JOB,
        { inboxId: row.id },
        { organizationId: row.organization_id, runAt: at, dedupeKey: `${REDACT_JOB}:${row.id}` },
      );
    },
  };
}

export type Operations = ReturnType<typeof operations>;
