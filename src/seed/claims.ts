import type { SeedDeps } from './deps.ts';

/** The claim categories (idempotent): 'Package missing', and item-issue ones with and without evidence. */
export async function seedClaims(
  s: Pick<SeedDeps, 'claims'>,
): Promise<Array<{ reference: string; name: string; evidenceRequired: boolean }>> {
  return (await s.claims.ensureDefaultCategories()).claimcategories;
}
