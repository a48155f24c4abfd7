import type { OperatorClient } from './client.ts';
import { expectOk } from './output.ts';

/** An organization as the operator typed it (reference, store code or exact name) → its reference. */
export async function resolveOrganization(c: OperatorClient, given: string): Promise<string> {
  const data = expectOk(await c.request('GET', `/resolve?${new URLSearchParams({ organization: given })}`));
  return data.organization.reference;
}

/** An organization and one of its stores (reference, code or exact name) → both references. */
export async function resolveStore(
  c: OperatorClient,
  organization: string,
  store: string,
): Promise<{ organization: string; store: string }> {
  const data = expectOk(await c.request('GET', `/resolve?${new URLSearchParams({ organization, store })}`));
  return { organization: data.organization.reference, store: data.store.reference };
}
