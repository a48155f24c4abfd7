import type { Services } from '../services.ts';

/** The claim categories (idempotent): 'Package missing', and item-issue ones with and without evidence. */
export async function seedClaims(
  s: Services,
): Promise<Array<{ reference: string; name: string; evidenceRequired: boolean }>> {
  return (await s.claims.ensureDefaultCategories()).claimcategories;
}
