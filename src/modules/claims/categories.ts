import { badRequest, conflict } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import type { ClaimsDeps } from './deps.ts';
import { claimsRepo as repo } from './repo.ts';
import { toCategory } from './view.ts';

/** The default categories: package-missing is the one item-issues claims may not use. */
export const DEFAULT_CATEGORIES = [
  { name: 'Package missing', evidenceRequired: false, packageMissing: true },
  { name: 'Damaged item', evidenceRequired: true, packageMissing: false },
  { name: 'Print defect', evidenceRequired: true, packageMissing: false },
  { name: 'Wrong item', evidenceRequired: false, packageMissing: false },
];

/** The claim categories partners choose from and operators add to. */
export function claimCategories(deps: Pick<ClaimsDeps, 'db' | 'clock'>) {
  const { db, clock } = deps;
  const categories = {
    async categories() {
      return { claimcategories: (await repo.categories(db)).map(toCategory) };
    },
    /** Operators add categories; the list is open (partners fetch it). */
    async createCategory(input: { name: string; evidenceRequired: boolean }) {
      const name = input.name.trim();
      if (!name) throw badRequest('body.name must not be blank');
      if (await repo.categoryByName(db, name))
        throw conflict('claimcategory_name_in_use', `A claim category named "${name}" already exists`);
      const id = newReference('Claimcategory');
      await repo.insertCategoryIfAbsent(db, {
        id,
        name,
        evidence_required: input.evidenceRequired,
        package_missing: false,
        created_at: clock.now(),
      });
      const row = await repo.categoryByName(db, name);
      if (!row || row.id !== id)
        throw conflict('claimcategory_name_in_use', `A claim category named "${name}" already exists`);
      return toCategory(row);
    },
    /** Idempotent: the categories every deployment needs (the demo seed and migrations of data use it). */
    async ensureDefaultCategories() {
      for (const c of DEFAULT_CATEGORIES) {
        if (c.packageMissing ? await repo.packageMissingCategory(db) : await repo.categoryByName(db, c.name)) continue;
        await repo.insertCategoryIfAbsent(db, {
          id: newReference('Claimcategory'),
          name: c.name,
          evidence_required: c.evidenceRequired,
          package_missing: c.packageMissing,
          created_at: clock.now(),
        });
      }
      return categories.categories();
    },
  };
  return categories;
}
