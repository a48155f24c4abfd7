import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppEnv, Config, RateLimitPolicy } from '../../config.ts';
import { ApiError } from '../errors.ts';
import { type RateLimitStore, rateLimitHeaders, retryAfterSeconds } from '../ratelimit/index.ts';
import { randomId } from '../ids.ts';

export type PolicyName = 'default' | 'uploads' | 'downloads' | 'previews';
export type RateLimitOverrides = Partial<Record<PolicyName, { quota: number; windowSeconds: number }>>;

export interface Principal {
  organizationId: string;
  keyId: string;
  keyName: string;
  readOnly: boolean;
  rateLimits: RateLimitOverrides | null;
  /** The integrator the key was issued through (its code goes on the orders it creates), or null. */
  integratorCode?: string | null;
}

export interface KeyResolver {
  resolve(keyHash: string): Promise<Principal | null>;
  touch(keyId: string, at: Date): Promise<void>;
}

/**
 * Who may call a route, declared by every route (`config: { access }`) and read by the hooks, never
 * inferred from the HTTP method: `read` any API key, read-only ones included; `write` a full API
 * key; `public` no API key (OpenAPI document, tracking pages, evidence files, health, docs, the
 * dashboard's own sign-in and session pages); `operator` the operator token.
 */
export type Access = 'read' | 'write' | 'public' | 'operator';
const ACCESS: readonly Access[] = ['read', 'write', 'public', 'operator'];

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    access?: Access;
    /** The dedicated rate-limit bucket this route also draws from. */
    bucket?: 'uploads' | 'downloads' | 'previews';
  }
}

/**
 * Refuses, when it is registered, a route that does not declare its access: a new route cannot
 * fall back to a default nobody chose.
 */
export function requireDeclaredAccess(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const access = (route.config as { access?: unknown } | undefined)?.access;
    if (!ACCESS.includes(access as Access)) {
      const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
      throw new Error(`${methods} ${route.url} declares no access: add config.access (${ACCESS.join(', ')})`);
    }
  });
}

export const keyPrefix = (env: AppEnv) => (env === 'production' ? 'sk_live_' : 'sk_test_');

export function generateApiKey(env: AppEnv): string {
  return keyPrefix(env) + randomId(40);
}

/**
 * API keys are 200 random bits, so a fast hash is enough and keeps lookups cheap. It runs on every
 * request: the one-shot `hash` takes ~0.9 µs where a `createHash` object took ~2.7.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret);
}

interface Cached {
  principal: Principal | null;
  until: number;
}

/**
 * Keys resolved once and kept for `ttlMs`. A revocation on this node evicts at once; other nodes
 * see it within the TTL. Unknown keys are cached too (briefly) so a flood of bad keys stays cheap.
 */
export class KeyCache {
  private entries = new Map<string, Cached>();
  private lastTouched = new Map<string, number>();
  constructor(
    private readonly resolver: KeyResolver,
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {}

  async principal(secret: string): Promise<Principal | null> {
    const digest = hashSecret(secret);
    const now = Date.now();
    const hit = this.entries.get(digest);
    if (hit && hit.until > now) return hit.principal;
    const principal = await this.resolver.resolve(digest);
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(digest, { principal, until: now + (principal ? this.ttlMs : Math.min(this.ttlMs, 2000)) });
    if (principal) this.touch(principal.keyId, now);
    return principal;
  }

  /** `last used` is written at most once a minute per key: no write on every request. */
  private touch(keyId: string, now: number): void {
    if ((this.lastTouched.get(keyId) ?? 0) > now - 60_000) return;
    this.lastTouched.set(keyId, now);
    this.resolver.touch(keyId, new Date(now)).catch(() => {});
  }

  evictKey(keyId: string): void {
    for (const [h, e] of this.entries) if (e.principal?.keyId === keyId) this.entries.delete(h);
  }

  evictOrganization(organizationId: string): void {
    for (const [h, e] of this.entries) if (e.principal?.organizationId === organizationId) this.entries.delete(h);
  }
}

export function policiesFor(
  config: Pick<Config, 'rateLimits'>,
  principal: Principal,
  bucket?: PolicyName,
): RateLimitPolicy[] {
  const pick = (name: PolicyName): RateLimitPolicy => {
    const o = principal.rateLimits?.[name];
    return o ? { name, quota: o.quota, windowSeconds: o.windowSeconds } : config.rateLimits[name];
  };
  return bucket && bucket !== 'default' ? [pick('default'), pick(bucket)] : [pick('default')];
}

/** Invalid keys per client address: enough for a misconfigured client to notice, not to probe. */
export const INVALID_KEY_POLICY = { name: 'invalid-keys', quota: 60, windowSeconds: 60 };

/**
 * Authentication, permission and rate limiting for one encapsulated scope. It runs before the body
 * is read, so an unauthenticated or throttled client costs no body parsing.
 */
export function installAuth(
  app: FastifyInstance,
  deps: { config: Pick<Config, 'env' | 'rateLimits'>; keys: KeyCache; rateLimits: RateLimitStore },
): void {
  const other = keyPrefix(deps.config.env === 'production' ? 'test' : 'production');
  // Declared, so every request of the scope has the field from its start: set only on success, it
  // changed each request's shape midway, and the hooks that read it after saw two shapes.
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const cfg = request.routeOptions.config;
    if (cfg?.access === 'public') return;
    const raw = request.headers['x-service-secret-key'];
    const secret = Array.isArray(raw) ? raw[0] : raw;
    if (!secret) {
      // The most common first mistake: the key sent the way most APIs take it.
      const bearer = /^bearer\s/i.test(String(request.headers.authorization ?? ''));
      throw new ApiError(
        'unauthorized',
        bearer
          ? 'Missing X-Service-Secret-Key header: this API does not read Authorization: Bearer; send the key as X-Service-Secret-Key: sk_…'
          : 'Missing X-Service-Secret-Key header',
      );
    }
    if (secret.startsWith(other)) {
      throw new ApiError(
        'unauthorized',
        `This is a ${deps.config.env === 'production' ? 'test' : 'production'} key; this is the ${deps.config.env} environment`,
      );
    }
    const principal = secret.length <= 200 ? await deps.keys.principal(secret) : null;
    if (!principal) {
      // Wrong keys cost a lookup each: a client address that keeps sending them is slowed down
      // (valid keys never touch this bucket, so the hot path pays nothing for it).
      const probe = await deps.rateLimits.consume(`invalid-keys:${request.ip}`, [INVALID_KEY_POLICY]);
      if (!probe.allowed) {
        const retry = retryAfterSeconds(probe.waitSeconds);
        throw new ApiError('rate_limited', `Too many invalid keys from this address; wait ${retry} s`, {
          headers: {
            'retry-after': String(retry),
          },
        });
      }
      throw new ApiError('unauthorized', 'The secret key is invalid or has been revoked');
    }
    request.principal = principal;

    const result = await deps.rateLimits.consume(
      principal.organizationId,
      policiesFor(deps.config, principal, cfg?.bucket),
    );
    reply.headers(rateLimitHeaders(result));
    if (!result.allowed) {
      const retry = retryAfterSeconds(result.waitSeconds);
      throw new ApiError(
        'rate_limited',
        `Rate limit exceeded; wait at least Retry-After (${retry} s) and watch X-RateLimit`,
        {
          headers: {
            'retry-after': String(retry),
          },
        },
      );
    }
    if (principal.readOnly && cfg?.access !== 'read') {
      throw new ApiError('insufficient_permissions', 'This API key is read-only');
    }
  });
}
