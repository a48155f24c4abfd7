import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who the current work is for: the organization of the authenticated request, or of the job being
 * run. It lets organization-scoped behaviour (test clocks) reach every `clock.now()` without
 * threading an organization through each call.
 *
 * Off unless test clocks are (the test environment): on Node 20 a scope kept across awaits turns on
 * async hooks for the whole process, a cost on every promise of every request (GET by reference:
 * ~12 % more CPU a request, decision 0129). Nothing else reads it: jobs are given their
 * organization by whoever queues them.
 */
interface Scope {
  organizationId: string | null;
}

const storage = new AsyncLocalStorage<Scope>();
let enabled = false;

/** Turns scopes on for this process (test clocks); there is no turning them off again. */
export function useOrganizationScopes(): void {
  enabled = true;
}

/**
 * Runs `fn` as work for the organization (only `fn` itself while scopes are off). Requests enter it
 * in a `preHandler` hook: after body parsing, whose stream callbacks would drop a scope entered
 * earlier.
 */
export function runInScope<T>(fn: () => T, organizationId: string | null): T {
  return enabled ? storage.run({ organizationId }, fn) : fn();
}

export function currentOrganization(): string | null {
  return enabled ? (storage.getStore()?.organizationId ?? null) : null;
}
