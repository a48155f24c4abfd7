import type { RateLimitOverrides } from '../../platform/http/auth.ts';
import type { AccountRow, ApiKeyRow, BrandRow, IntegratorRow, OrganizationRow, StoreRow } from './repo.ts';

/** What the API shows of the module's rows: one function per resource. */

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toOrganization = (o: OrganizationRow) => ({
  reference: o.id,
  name: o.name,
  created: o.created_at.toISOString(),
});
export const accountView = (env: string) => (a: AccountRow) => ({
  reference: a.id,
  name: a.name,
  balance: a.balance_cents,
  /** Prepaid accounts pay before production; the others are invoiced monthly, due in paymentTermDays. */
  prepaid: a.prepaid,
  paymentTermDays: a.payment_term_days,
  /** Test environment only: the balance as it would be if its orders were charged (they never are); null in production. */
  wouldBeBalance: env === 'test' ? a.balance_cents + a.simulated_balance_cents : null,
  legalEntity: { name: a.legal_entity_name, vatNumber: a.vat_number },
  billingAddress: a.billing_address,
  created: a.created_at.toISOString(),
});
export const toBrand = (b: BrandRow) => ({
  reference: b.id,
  name: b.name,
  logoUrl: b.logo_url,
  primaryColor: b.primary_color,
  secondaryColor: b.secondary_color,
  customerService: {
    email: b.customer_service.email ?? null,
    phonenumber: b.customer_service.phonenumber ?? null,
    url: b.customer_service.url ?? null,
  },
  created: b.created_at.toISOString(),
});
/** A brand as other modules read it: what its tracking page, packing slip and label show. */
export interface BrandLook {
  reference: string;
  name: string;
  logoUrl: string | null;
  /** As stored; a reader that prints them checks they are `#rrggbb` colours. */
  primaryColor: string;
  secondaryColor: string;
  /** `email`, `phonenumber` and `url`, each only when the brand has it. */
  customerService: Record<string, string>;
}
export const toBrandLook = (b: BrandRow): BrandLook => ({
  reference: b.id,
  name: b.name,
  logoUrl: b.logo_url,
  primaryColor: b.primary_color,
  secondaryColor: b.secondary_color,
  customerService: b.customer_service,
});
export const toStore = (s: StoreRow) => ({
  reference: s.id,
  name: s.name,
  code: s.code,
  legacyCode: s.code,
  integration: s.integration,
  accountReference: s.account_id,
  defaultBrandReference: s.default_brand_id,
  combinedAddress: s.combined_address,
  callbackUrl: s.callback_url,
  created: s.created_at.toISOString(),
});
export const toApiKey = (k: ApiKeyRow) => ({
  reference: k.id,
  name: k.name,
  hint: k.hint,
  readOnly: k.read_only,
  integratorReference: k.integrator_id,
  created: k.created_at.toISOString(),
  lastUsed: iso(k.last_used_at),
  revoked: iso(k.revoked_at),
});

export const toIntegrator = (i: Omit<IntegratorRow, 'seq'>) => ({
  reference: i.id,
  code: i.code,
  name: i.name,
  created: i.created_at.toISOString(),
});

/** A store as other modules read it: orders take orders for it, shipments and billing name it. */
export interface StoreFacts {
  id: string;
  organizationId: string;
  /** The account its orders are charged to. */
  accountId: string;
  name: string;
  /** The V1 store code (order codes are `<code>-<number>`). */
  code: string;
  /** `api`, or the platform its orders come from (a Shopify store's are written by the app only). */
  integration: string;
  defaultBrandId: string | null;
  /** Where the store's combined orders go. */
  combinedAddress: Record<string, string> | null;
  /** The legacy order callback's URL. */
  callbackUrl: string | null;
}

export const storeFacts = (s: StoreRow): StoreFacts => ({
  id: s.id,
  organizationId: s.organization_id,
  accountId: s.account_id,
  name: s.name,
  code: s.code,
  integration: s.integration,
  defaultBrandId: s.default_brand_id,
  combinedAddress: s.combined_address,
  callbackUrl: s.callback_url,
});

/** An organization as other modules read it: its name and its limits (rendering, the consoles). */
export interface OrganizationFacts {
  id: string;
  name: string;
  /** The operator's overrides of the API's rate limits; null: the defaults. */
  rateLimits: RateLimitOverrides | null;
  /** Rendertokens a week. */
  rendertokenLimit: number;
}

export const organizationFacts = (o: OrganizationRow): OrganizationFacts => ({
  id: o.id,
  name: o.name,
  rateLimits: o.rate_limits,
  rendertokenLimit: o.rendertoken_limit,
});
