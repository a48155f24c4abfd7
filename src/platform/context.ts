import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who the current work is for: the organization of the authenticated request, or of the job being
 * run. It lets organization-scoped behaviour (test clocks) reach every `clock.now()` without
 * threading an organization through each call.
 */
interface Scope {
  organizationId: string | null;
}

const storage = new AsyncLocalStorage<Scope>();

/**
 * Runs `fn` as work for the organization. Requests enter it in a `preHandler` hook: after body
 * parsing, whose stream callbacks would drop a scope entered earlier.
 */
export function runInScope<T>(fn: () => T, organizationId: string | null): T {
  return storage.run({ organizationId }, fn);
}

export function currentOrganization(): string | null {
  return storage.getStore()?.organizationId ?? null;
}
