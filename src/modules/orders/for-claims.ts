import type { Executor } from '../../platform/db/index.ts';

/**
 * Added by the claims module (issue 5): the replacement orders a claim's decision created, oldest
 * first. A claim detail lists them so a partner can follow the replacement.
 */
export async function replacementOrdersOfClaim(ex: Executor, orgId: string, claimId: string): Promise<string[]> {
  const rows = await ex.query<{ id: string }>(
    'SELECT id FROM orders WHERE organization_id = $1 AND replacement_for_claim_id = $2 ORDER BY seq',
    [orgId, claimId],
  );
  return rows.map((r) => r.id);
}
