import type { SeedDeps } from './deps.ts';
import { seedCatalog } from './catalog.ts';
import { seedClaims } from './claims.ts';
import { type RenderingSeed, seedRendering } from './rendering.ts';
import { type DashboardSeedUser, seedDashboard } from './dashboard.ts';
import { seedShopify } from './shopify.ts';

export interface DemoOrganization {
  reference: string;
  name: string;
  apiKeys: { full: string; readOnly: string };
  stores: Array<{ reference: string; code: string; integration: string }>;
  brands: Array<{ reference: string; name: string }>;
  accounts: Array<{ reference: string; name: string }>;
  /** Every product the organization can see, archived ones included (the list leaves those out). */
  products?: Array<{ reference: string; name: string; status: string; printable: boolean }>;
}

export interface SeedResult {
  created: boolean;
  claimcategories?: Array<{ reference: string; name: string; evidenceRequired: boolean }>;
  organizations: DemoOrganization[];
  /** Demo scenes, perspectives and compositions by import key. */
  rendering?: RenderingSeed;
  /** Demo dashboard and console sign-ins (docs/dashboard.md). */
  dashboardUsers?: DashboardSeedUser[];
}

const NL_ADDRESS = {
  company: 'Demo Cases B.V.',
  firstname: 'Eva',
  lastname: 'de Vries',
  streetname: 'Keizersgracht',
  housenumber: '100',
  zipcode: '1015 AA',
  city: 'Amsterdam',
  countryCode: 'NL',
  email: 'billing@demo-cases.example',
  phonenumber: '+31201234567',
};
const DE_ADDRESS = {
  company: 'Other Prints GmbH',
  firstname: 'Jonas',
  lastname: 'Becker',
  streetname: 'Torstraße',
  housenumber: '5',
  zipcode: '10119',
  city: 'Berlin',
  countryCode: 'DE',
  email: 'ops@other-prints.example',
};

interface StoreSpec {
  name: string;
  code: string;
  integration: string;
  account: number;
  brand: number;
  callbackUrl?: string;
}
interface OrgSpec {
  name: string;
  rendertokenLimit: number;
  accounts: Array<{ name: string; address: Record<string, string>; balance: number }>;
  brands: Array<{ name: string; primaryColor: string; secondaryColor: string; email: string }>;
  stores: StoreSpec[];
}

const DEMO: OrgSpec[] = [
  {
    name: 'Demo Cases Co',
    rendertokenLimit: 1000,
    accounts: [
      { name: 'Demo Cases Benelux', address: NL_ADDRESS, balance: 125000 },
      {
        name: 'Demo Cases Germany',
        address: {
          ...NL_ADDRESS,
          company: 'Demo Cases GmbH',
          city: 'Köln',
          zipcode: '50667',
          countryCode: 'DE',
          streetname: 'Hohe Straße',
        },
        balance: -4200,
      },
    ],
    brands: [
      { name: 'CaseCraft', primaryColor: '#0b5fff', secondaryColor: '#e8f0ff', email: 'help@casecraft.example' },
      { name: 'Pocket Prints', primaryColor: '#c2185b', secondaryColor: '#fde7f0', email: 'care@pocketprints.example' },
    ],
    stores: [
      { name: 'CaseCraft API store', code: 'DEMO1', integration: 'api', account: 0, brand: 0 },
      { name: 'Pocket Prints API store', code: 'DEMO2', integration: 'api', account: 1, brand: 1 },
      { name: 'CaseCraft Shopify', code: 'DEMOSHOP', integration: 'shopify', account: 0, brand: 0 },
    ],
  },
  {
    name: 'Other Prints Ltd',
    rendertokenLimit: 500,
    accounts: [{ name: 'Other Prints', address: DE_ADDRESS, balance: 0 }],
    brands: [
      {
        name: 'Other Prints',
        primaryColor: '#2e7d32',
        secondaryColor: '#e8f5e9',
        email: 'support@other-prints.example',
      },
    ],
    stores: [{ name: 'Other Prints API store', code: 'OTHER1', integration: 'api', account: 0, brand: 0 }],
  },
];

/** Made-up numbers with the right form and check digits (no register knows them). */
const DEMO_VAT_NUMBERS: Record<string, string> = { NL: 'NL123456782B01', DE: 'DE123456788' };

const KEY_NAMES = { full: 'demo (full access)', readOnly: 'demo (read-only)' };

async function createOrganization(s: SeedDeps, spec: OrgSpec) {
  const org = await s.organization.createOrganization({ name: spec.name, rendertokenLimit: spec.rendertokenLimit });
  const accounts = [];
  for (const a of spec.accounts) {
    accounts.push(
      await s.billing.openAccount(
        org.reference,
        {
          name: a.name,
          balance: a.balance,
          legalEntity: { name: a.address.company, vatNumber: DEMO_VAT_NUMBERS[a.address.countryCode] },
          billingAddress: a.address as never,
        },
        'demo seed',
      ),
    );
  }
  const brands = [];
  for (const b of spec.brands) {
    brands.push(
      await s.organization.createBrand(org.reference, {
        name: b.name,
        primaryColor: b.primaryColor,
        secondaryColor: b.secondaryColor,
        customerService: { email: b.email, url: `https://${b.name.toLowerCase().replace(/\W+/g, '')}.example/help` },
      }),
    );
  }
  for (const st of spec.stores) {
    await s.organization.createStore(org.reference, {
      name: st.name,
      code: st.code,
      integration: st.integration,
      accountReference: accounts[st.account].reference,
      defaultBrandReference: brands[st.brand].reference,
      combinedAddress: spec.accounts[st.account].address as never,
      callbackUrl: st.callbackUrl ?? null,
    });
  }
  return org.reference;
}

/** Revokes an organization's demo keys and issues new ones, in the environment of `s.config`. */
export async function issueDemoKeys(
  s: Pick<SeedDeps, 'organization'>,
  orgId: string,
): Promise<DemoOrganization['apiKeys']> {
  await s.organization.reissueKeys(orgId, [KEY_NAMES.full, KEY_NAMES.readOnly]);
  const full = await s.organization.createApiKey(orgId, { name: KEY_NAMES.full });
  const readOnly = await s.organization.createApiKey(orgId, { name: KEY_NAMES.readOnly, readOnly: true });
  return { full: full.apiKey.secret, readOnly: readOnly.apiKey.secret };
}

async function describe(s: SeedDeps, orgId: string): Promise<DemoOrganization> {
  const apiKeys = await issueDemoKeys(s, orgId);
  const org = await s.organization.organization(orgId);
  const page = { limit: 100 };
  return {
    reference: orgId,
    name: org.name,
    apiKeys,
    stores: (await s.organization.listStores(orgId, page)).stores
      .reverse()
      .map((x) => ({ reference: x.reference, code: x.code, integration: x.integration })),
    brands: (await s.organization.listBrands(orgId, page)).brands
      .reverse()
      .map((x) => ({ reference: x.reference, name: x.name })),
    accounts: (await s.organization.listAccounts(orgId, page)).accounts
      .reverse()
      .map((x) => ({ reference: x.reference, name: x.name })),
  };
}

/**
 * Loads the demo data once (keyed by the demo store codes) and issues fresh demo API keys on every
 * run, since secrets are stored only as hashes and cannot be shown again.
 */
export async function seedDemo(s: SeedDeps): Promise<SeedResult> {
  let created = false;
  const orgIds: string[] = [];
  for (const spec of DEMO) {
    const existing = await s.organization.storeByCode(spec.stores[0].code);
    if (existing) {
      orgIds.push(existing.organization_id);
    } else {
      orgIds.push(await createOrganization(s, spec));
      created = true;
    }
  }
  const organizations = [];
  await seedCatalog(s, orgIds);
  const claimcategories = await seedClaims(s);
  for (const id of orgIds) organizations.push(await describe(s, id));
  for (const o of organizations) o.products = await s.catalog.productSummaries(o.reference);
  const rendering = await seedRendering(s, orgIds);
  const dashboardUsers = await seedDashboard(s, orgIds);
  await seedShopify(s, organizations[0]);
  return { created, organizations, rendering, claimcategories, dashboardUsers };
}

/** What the runtime, the CLI and the operator API call: demo data never reaches a production database. */
export async function seedDemoUnlessProduction(s: SeedDeps): Promise<SeedResult> {
  if (s.config.env === 'production') throw new Error('demo data is never seeded in production');
  return seedDemo(s);
}
