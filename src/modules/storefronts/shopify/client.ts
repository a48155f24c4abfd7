import type { AdminApiClient } from '@shopify/admin-api-client';
import { SHOPIFY_API_VERSION } from './version.ts';

/** Shopify asked us to wait (429, THROTTLED, a 5xx or an unreachable shop): try again after `afterMs`. */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly afterMs: number,
  ) {
    super(message);
  }
}

/** Shopify refused the call for a reason retrying will not fix (userErrors, 4xx, a revoked token). */
export class ShopifyRefused extends Error {}

export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

interface CostExtensions {
  cost?: { requestedQueryCost?: number; throttleStatus?: ThrottleStatus };
}

const RETRY_5XX_MS = 30_000;

/** Milliseconds until `cost` points are back, from the bucket Shopify reported (leaky bucket). */
export function waitForCost(status: ThrottleStatus, cost: number): number {
  const missing = Math.max(0, cost - status.currentlyAvailable);
  return missing === 0 ? 0 : Math.ceil((missing / Math.max(1, status.restoreRate)) * 1000);
}

/** Retry-After in seconds (or an HTTP date) as milliseconds; Shopify's REST default of 2 s when absent. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (!header) return 2000;
  const secs = Number(header);
  if (Number.isFinite(secs)) return Math.max(0, Math.ceil(secs * 1000));
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - now) : 2000;
}

/**
 * One shop's Admin GraphQL API through Shopify's official client. The client's own retries are off:
 * a throttled or failing call becomes `RetryLater`, and the job that made it is rescheduled through
 * the jobs table, so a waiting store holds no worker slot and never delays another store.
 */
export function shopifyGraphql(shop: string, accessToken: string, fetchApi: FetchLike) {
  // Shopify's client (~20 modules) loads with a process's first call to a shop.
  let client: AdminApiClient | undefined;
  const connect = async () => {
    const { createAdminApiClient } = await import('@shopify/admin-api-client');
    return createAdminApiClient({
      storeDomain: shop,
      apiVersion: SHOPIFY_API_VERSION,
      accessToken,
      retries: 0,
      customFetchApi: fetchApi as never,
    });
  };
  let lastThrottle: ThrottleStatus | null = null;
  return {
    get throttle() {
      return lastThrottle;
    },
    async request<T>(document: string, variables: Record<string, unknown>): Promise<T> {
      let res: Awaited<ReturnType<AdminApiClient['request']>>;
      client ??= await connect();
      try {
        res = await client.request(document, { variables });
      } catch (err) {
        throw new RetryLater(`Shopify could not be reached: ${(err as Error).message}`, RETRY_5XX_MS);
      }
      const ext = res.extensions as CostExtensions | undefined;
      if (ext?.cost?.throttleStatus) lastThrottle = ext.cost.throttleStatus;
      const errors = res.errors;
      if (errors) {
        const status = errors.networkStatusCode ?? 0;
        const response = errors.response as Response | undefined;
        if (status === 429)
          throw new RetryLater('Shopify answered 429', retryAfterMs(response?.headers.get('retry-after') ?? null));
        if (status >= 500 || status === 0)
          throw new RetryLater(`Shopify answered ${status || 'nothing'}`, RETRY_5XX_MS);
        const gql = (errors.graphQLErrors ?? []) as Array<{ message: string; extensions?: { code?: string } }>;
        if (gql.some((e) => e.extensions?.code === 'THROTTLED')) {
          const cost = ext?.cost?.requestedQueryCost ?? 50;
          throw new RetryLater(
            'Shopify throttled the query',
            lastThrottle ? Math.max(1000, waitForCost(lastThrottle, cost)) : 2000,
          );
        }
        if (status === 401 || status === 403) throw new ShopifyRefused(`Shopify refused the access token (${status})`);
        throw new ShopifyRefused(
          gql.map((e) => e.message).join('; ') || errors.message || `Shopify answered ${status}`,
        );
      }
      return res.data as T;
    },
  };
}

export type ShopifyGraphql = ReturnType<typeof shopifyGraphql>;

/** A mutation's payload as far as its userErrors go. */
export type UserErrorsPayload = { userErrors: Array<{ field: string[] | null; message: string }> };

/** A mutation's userErrors as one refusal (the merchant sees the message on the store's page). */
export function assertNoUserErrors(
  payload: { userErrors?: Array<{ field?: string[] | null; message: string }> } | null,
  what: string,
) {
  if (!payload) throw new ShopifyRefused(`${what}: Shopify returned nothing`);
  const errs = payload.userErrors ?? [];
  if (errs.length)
    throw new ShopifyRefused(
      `${what}: ${errs.map((e) => (e.field?.length ? `${e.field.join('.')}: ${e.message}` : e.message)).join('; ')}`,
    );
}
