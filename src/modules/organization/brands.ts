import type { Static } from 'typebox';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { type OrganizationContext, mustExist } from './context.ts';
import { organizationRepo as repo } from './repo.ts';
import type { CreateBrand } from './schemas.ts';
import { type BrandLook, toBrand, toBrandLook } from './views.ts';

/** Brands: the name, logo, colours and customer service printed on a store's parcels. */
export function brandUseCases({ deps, requireOrganization }: OrganizationContext) {
  const { db, clock, cursors } = deps;
  const brandRow = (orgId: string, ref: string) => mustExist('Brand', ref, (id) => repo.brand(db, orgId, id));
  const brand = async (orgId: string, ref: string) => toBrand(await brandRow(orgId, ref));

  return {
    async listBrands(orgId: string, page: PageRequest) {
      return listPage(cursors, page, { plural: 'brands', load: (ks) => repo.brands(db, orgId, ks), item: toBrand });
    },
    brand,
    /** The brand, or null when it does not exist or belongs to another organization. */
    async findBrand(orgId: string, ref: string): Promise<BrandLook | null> {
      const row = isReference('Brand', ref) ? await repo.brand(db, orgId, ref) : null;
      return row && toBrandLook(row);
    },
    async createBrand(orgId: string, input: Static<typeof CreateBrand>) {
      await requireOrganization(orgId);
      const id = newReference('Brand');
      await repo.insertBrand(db, {
        id,
        organization_id: orgId,
        name: input.name,
        logo_url: input.logoUrl ?? null,
        primary_color: (input.primaryColor ?? '#222222').toLowerCase(),
        secondary_color: (input.secondaryColor ?? '#f5f5f5').toLowerCase(),
        customer_service: input.customerService ?? {},
        created_at: clock.now(),
      });
      return brand(orgId, id);
    },
    /** Dashboard: the only place a brand changes. */
    async updateBrand(
      orgId: string,
      ref: string,
      input: Partial<Static<typeof CreateBrand>> & { logoUrl?: string | null },
    ) {
      await brandRow(orgId, ref);
      const patch: Parameters<typeof repo.updateBrand>[3] = {};
      if (input.name !== undefined) patch.name = input.name;
      if (input.logoUrl !== undefined) patch.logo_url = input.logoUrl;
      if (input.primaryColor !== undefined) patch.primary_color = input.primaryColor.toLowerCase();
      if (input.secondaryColor !== undefined) patch.secondary_color = input.secondaryColor.toLowerCase();
      if (input.customerService !== undefined)
        patch.customer_service = Object.fromEntries(
          Object.entries(input.customerService).filter(([, v]) => v),
        ) as Record<string, string>;
      await repo.updateBrand(db, orgId, ref, patch);
      return brand(orgId, ref);
    },
  };
}
