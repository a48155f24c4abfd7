import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { type Db, prepared } from '../db/index.ts';
import { ApiError } from '../errors.ts';
import { UploadedFile } from './upload-file.ts';

const TTL_MS = 24 * 3600 * 1000;
/** A request that died mid-way (crash) leaves its key in flight; after this it may be retried. */
const STALE_IN_FLIGHT_MS = 60_000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string;
  }
}

function bodyHash(body: unknown): string {
  // An upload's body is on disk with the SHA-256 computed as it arrived: the same digest as hashing
  // its bytes here, without reading 50 MB back.
  if (body instanceof UploadedFile) return body.sha256;
  const data = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body ?? null));
  return createHash('sha256').update(data).digest('hex');
}

/**
 * `Idempotency-Key` on POST: the first request's response is stored for 24 hours and replayed to a
 * repeat with the same body; another body under the same key is `409 idempotency_key_reused`.
 */
export function installIdempotency(app: FastifyInstance, deps: { db: Db; clock: Clock }): void {
  const { db, clock } = deps;

  const preHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST') return;
    const key = request.headers['idempotency-key'];
    if (key === undefined) return;
    if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
      throw new ApiError('invalid_request', 'header.Idempotency-Key must be 1 to 255 characters');
    }
    const org = request.principal.organizationId;
    const path = request.url.split('?')[0];
    const hash = bodyHash(request.body);
    const now = clock.now();
    const inserted = await db.query(
      prepared(
        `INSERT INTO idempotency_keys (organization_id, key, method, path, body_hash, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (organization_id, key) DO UPDATE
         SET path = EXCLUDED.path, body_hash = EXCLUDED.body_hash, created_at = EXCLUDED.created_at,
             status = NULL, response = NULL, method = EXCLUDED.method
         WHERE idempotency_keys.created_at < $7
            OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < $8)
       RETURNING key`,
      ),
      [
        org,
        key,
        request.method,
        path,
        hash,
        now,
        new Date(now.getTime() - TTL_MS),
        new Date(now.getTime() - STALE_IN_FLIGHT_MS),
      ],
    );
    if (inserted.length === 1) {
      request.idempotencyKey = key;
      return;
    }
    const [stored] = await db.query(
      'SELECT path, body_hash, status, response FROM idempotency_keys WHERE organization_id = $1 AND key = $2',
      [org, key],
    );
    if (!stored)
      throw new ApiError(
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is being processed; retry shortly',
      );
    if (stored.path !== path || stored.body_hash !== hash) {
      throw new ApiError(
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request in the last 24 hours',
      );
    }
    if (stored.status === null) {
      throw new ApiError(
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is still being processed; retry shortly',
      );
    }
    reply.header('idempotent-replayed', 'true');
    reply.status(stored.status);
    if (stored.status >= 400) request.errorBody = stored.response;
    return reply.send(stored.response ?? undefined);
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const key = request.idempotencyKey;
    if (!key) return payload;
    request.idempotencyKey = undefined;
    const org = request.principal.organizationId;
    if (reply.statusCode >= 500 || reply.statusCode === 429) {
      // Nothing was done that must not be repeated: let the client retry under the same key.
      await db.query('DELETE FROM idempotency_keys WHERE organization_id = $1 AND key = $2', [org, key]);
      return payload;
    }
    let response: unknown = null;
    if (typeof payload === 'string' && payload.length > 0) {
      try {
        response = JSON.parse(payload);
      } catch {
        response = null;
      }
    }
    await db.query(
      prepared('UPDATE idempotency_keys SET status = $3, response = $4 WHERE organization_id = $1 AND key = $2'),
      [org, key, reply.statusCode, response === null ? null : JSON.stringify(response)],
    );
    return payload;
  };

  // Only POST routes take an Idempotency-Key: the hooks are attached to those routes alone, so a
  // GET does not pass through them at all.
  const list = <T>(h: T | T[] | undefined): T[] => (h === undefined ? [] : Array.isArray(h) ? h : [h]);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    route.preHandler = [...list(route.preHandler), preHandler] as typeof route.preHandler;
    route.onSend = [...list(route.onSend), onSend] as typeof route.onSend;
  });
}

export async function purgeExpiredIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const rows = await db.query('DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING key', [
    new Date(now.getTime() - TTL_MS),
  ]);
  return rows.length;
}
