import { newReference } from '../../platform/ids.ts';
import { type Executor, prepared } from '../../platform/db/index.ts';
import type { Keyset } from '../../platform/http/pagination.ts';
import type { Principal, RateLimitOverrides } from '../../platform/http/auth.ts';

export interface OrganizationRow {
  id: string;
  seq: number;
  name: string;
  rate_limits: RateLimitOverrides | null;
  rendertoken_limit: number;
  created_at: Date;
}
export interface AccountRow {
  id: string;
  seq: number;
  organization_id: string;
  name: string;
  balance_cents: number;
  simulated_balance_cents: number;
  prepaid: boolean;
  payment_term_days: number;
  legal_entity_name: string;
  vat_number: string | null;
  billing_address: Record<string, string>;
  created_at: Date;
}
export interface BrandRow {
  id: string;
  seq: number;
  organization_id: string;
  name: string;
  logo_url: string | null;
  primary_color: string;
  secondary_color: string;
  customer_service: Record<string, string>;
  created_at: Date;
}
export interface StoreRow {
  id: string;
  seq: number;
  organization_id: string;
  account_id: string;
  name: string;
  code: string;
  integration: string;
  default_brand_id: string | null;
  combined_address: Record<string, string> | null;
  callback_url: string | null;
  created_at: Date;
}
export interface IntegratorRow {
  id: string;
  seq: number;
  code: string;
  name: string;
  created_at: Date;
}
export interface ApiKeyRow {
  id: string;
  integrator_id: string | null;
  seq: number;
  organization_id: string;
  name: string;
  hint: string;
  read_only: boolean;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** Rows of one organization's table, newest first, after a keyset position. */
async function pageIn<T>(ex: Executor, table: string, orgId: string, ks: Keyset): Promise<T[]> {
  return ex.query(
    `SELECT * FROM ${table} WHERE organization_id = $1 AND ($2::bigint IS NULL OR seq < $2) ORDER BY seq DESC LIMIT $3`,
    [orgId, ks.after, ks.limit],
  ) as Promise<T[]>;
}

async function oneIn<T>(ex: Executor, table: string, orgId: string, id: string): Promise<T | null> {
  const rows = await ex.query(`SELECT * FROM ${table} WHERE organization_id = $1 AND id = $2`, [orgId, id]);
  return (rows[0] as T) ?? null;
}

export const organizationRepo = {
  async insertOrganization(ex: Executor, o: { id: string; name: string; rendertokenLimit: number; createdAt: Date }) {
    await ex.query('INSERT INTO organizations (id, name, rendertoken_limit, created_at) VALUES ($1, $2, $3, $4)', [
      o.id,
      o.name,
      o.rendertokenLimit,
      o.createdAt,
    ]);
  },
  async organization(ex: Executor, id: string): Promise<OrganizationRow | null> {
    return (await ex.query<OrganizationRow>('SELECT * FROM organizations WHERE id = $1', [id]))[0] ?? null;
  },
  async organizations(ex: Executor, ks: Keyset): Promise<OrganizationRow[]> {
    return ex.query<OrganizationRow>(
      'SELECT * FROM organizations WHERE ($1::bigint IS NULL OR seq < $1) ORDER BY seq DESC LIMIT $2',
      [ks.after, ks.limit],
    );
  },
  async setRateLimits(ex: Executor, id: string, limits: RateLimitOverrides | null): Promise<boolean> {
    const rows = await ex.query('UPDATE organizations SET rate_limits = $2 WHERE id = $1 RETURNING id', [
      id,
      limits === null ? null : JSON.stringify(limits),
    ]);
    return rows.length === 1;
  },
  async setRendertokenLimit(ex: Executor, id: string, limit: number): Promise<boolean> {
    const rows = await ex.query('UPDATE organizations SET rendertoken_limit = $2 WHERE id = $1 RETURNING id', [
      id,
      limit,
    ]);
    return rows.length === 1;
  },

  async insertAccount(ex: Executor, a: Omit<AccountRow, 'seq' | 'simulated_balance_cents'>) {
    await ex.query(
      `INSERT INTO accounts (id, organization_id, name, balance_cents, prepaid, payment_term_days, legal_entity_name, vat_number, billing_address, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        a.id,
        a.organization_id,
        a.name,
        a.balance_cents,
        a.prepaid,
        a.payment_term_days,
        a.legal_entity_name,
        a.vat_number,
        JSON.stringify(a.billing_address),
        a.created_at,
      ],
    );
    // The balance is the sum of the ledger (billing module): a starting balance is its first entry.
    if (a.balance_cents !== 0)
      await ex.query(
        `INSERT INTO ledger_entries (id, organization_id, account_id, kind, amount_cents, source, description, created_at)
         VALUES ($1, $2, $3, 'opening', $4, $3, 'Opening balance', $5)`,
        [newReference('Ledgerentry'), a.organization_id, a.id, a.balance_cents, a.created_at],
      );
  },
  accounts: (ex: Executor, orgId: string, ks: Keyset) => pageIn<AccountRow>(ex, 'accounts', orgId, ks),
  account: (ex: Executor, orgId: string, id: string) => oneIn<AccountRow>(ex, 'accounts', orgId, id),

  async insertBrand(ex: Executor, b: Omit<BrandRow, 'seq'>) {
    await ex.query(
      `INSERT INTO brands (id, organization_id, name, logo_url, primary_color, secondary_color, customer_service, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        b.id,
        b.organization_id,
        b.name,
        b.logo_url,
        b.primary_color,
        b.secondary_color,
        JSON.stringify(b.customer_service),
        b.created_at,
      ],
    );
  },
  brands: (ex: Executor, orgId: string, ks: Keyset) => pageIn<BrandRow>(ex, 'brands', orgId, ks),
  brand: (ex: Executor, orgId: string, id: string) => oneIn<BrandRow>(ex, 'brands', orgId, id),

  async insertStore(ex: Executor, s: Omit<StoreRow, 'seq'>) {
    await ex.query(
      `INSERT INTO stores (id, organization_id, account_id, name, code, integration, default_brand_id, combined_address, callback_url, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        s.id,
        s.organization_id,
        s.account_id,
        s.name,
        s.code,
        s.integration,
        s.default_brand_id,
        s.combined_address === null ? null : JSON.stringify(s.combined_address),
        s.callback_url,
        s.created_at,
      ],
    );
  },
  stores: (ex: Executor, orgId: string, ks: Keyset) => pageIn<StoreRow>(ex, 'stores', orgId, ks),
  store: (ex: Executor, orgId: string, id: string) => oneIn<StoreRow>(ex, 'stores', orgId, id),
  async updateStore(
    ex: Executor,
    orgId: string,
    id: string,
    patch: {
      callback_url?: string | null;
      name?: string;
      integration?: string;
      default_brand_id?: string | null;
      combined_address?: Record<string, string> | null;
    },
  ): Promise<boolean> {
    const rows = await ex.query(
      `UPDATE stores SET
         callback_url = CASE WHEN $3 THEN $4 ELSE callback_url END,
         name = COALESCE($5, name),
         integration = COALESCE($6, integration),
         default_brand_id = CASE WHEN $7 THEN $8 ELSE default_brand_id END,
         combined_address = CASE WHEN $9 THEN $10::jsonb ELSE combined_address END
       WHERE organization_id = $1 AND id = $2 RETURNING id`,
      [
        orgId,
        id,
        'callback_url' in patch,
        patch.callback_url ?? null,
        patch.name ?? null,
        patch.integration ?? null,
        'default_brand_id' in patch,
        patch.default_brand_id ?? null,
        'combined_address' in patch,
        patch.combined_address ? JSON.stringify(patch.combined_address) : null,
      ],
    );
    return rows.length === 1;
  },
  /** Dashboard: a brand's editable fields; absent keys keep their value. */
  async updateBrand(
    ex: Executor,
    orgId: string,
    id: string,
    patch: {
      name?: string;
      logo_url?: string | null;
      primary_color?: string;
      secondary_color?: string;
      customer_service?: Record<string, string>;
    },
  ): Promise<boolean> {
    const rows = await ex.query(
      `UPDATE brands SET
         name = COALESCE($3, name),
         logo_url = CASE WHEN $4 THEN $5 ELSE logo_url END,
         primary_color = COALESCE($6, primary_color),
         secondary_color = COALESCE($7, secondary_color),
         customer_service = COALESCE($8::jsonb, customer_service)
       WHERE organization_id = $1 AND id = $2 RETURNING id`,
      [
        orgId,
        id,
        patch.name ?? null,
        'logo_url' in patch,
        patch.logo_url ?? null,
        patch.primary_color ?? null,
        patch.secondary_color ?? null,
        patch.customer_service ? JSON.stringify(patch.customer_service) : null,
      ],
    );
    return rows.length === 1;
  },
  /**
   * Dashboard: name and billing address; the address keeps its country (a tax detail, set by the
   * billing module), balance and payment terms stay.
   */
  async updateAccount(
    ex: Executor,
    orgId: string,
    id: string,
    patch: { name?: string; billing_address?: Record<string, string> },
  ): Promise<boolean> {
    const rows = await ex.query(
      `UPDATE accounts SET
         name = COALESCE($3, name),
         billing_address = COALESCE($4::jsonb, billing_address)
       WHERE organization_id = $1 AND id = $2
         AND ($4::jsonb IS NULL OR billing_address->>'countryCode' = $4::jsonb->>'countryCode')
       RETURNING id`,
      [orgId, id, patch.name ?? null, patch.billing_address ? JSON.stringify(patch.billing_address) : null],
    );
    return rows.length === 1;
  },
  /** The next V1-style order number of a store, taken under the row lock. */
  async nextOrderNumber(ex: Executor, storeId: string): Promise<number> {
    const rows = await ex.query<{ order_counter: number }>(
      prepared('UPDATE stores SET order_counter = order_counter + 1 WHERE id = $1 RETURNING order_counter'),
      [storeId],
    );
    return rows[0].order_counter;
  },
  /**
   * Takes `count` order numbers of each store in one statement and returns the last one taken per
   * store. The rows are locked in id order first, so that two such statements never deadlock.
   */
  async takeOrderNumbers(ex: Executor, counts: Map<string, number>): Promise<Map<string, number>> {
    const rows = await ex.query<{ id: string; order_counter: number }>(
      prepared(
        `WITH x AS (SELECT * FROM unnest($1::text[], $2::int[]) AS x (id, n)),
       l AS (SELECT s.id FROM stores s JOIN x ON x.id = s.id ORDER BY s.id FOR UPDATE OF s)
       UPDATE stores s SET order_counter = s.order_counter + x.n FROM x JOIN l ON l.id = x.id WHERE s.id = x.id
       RETURNING s.id, s.order_counter`,
      ),
      [[...counts.keys()], [...counts.values()]],
    );
    return new Map(rows.map((r) => [r.id, r.order_counter]));
  },

  async insertApiKey(
    ex: Executor,
    k: {
      id: string;
      organizationId: string;
      name: string;
      hash: string;
      hint: string;
      readOnly: boolean;
      createdAt: Date;
      integratorId?: string | null;
    },
  ) {
    await ex.query(
      'INSERT INTO api_keys (id, organization_id, name, key_hash, hint, read_only, created_at, integrator_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [k.id, k.organizationId, k.name, k.hash, k.hint, k.readOnly, k.createdAt, k.integratorId ?? null],
    );
  },
  async insertIntegrator(ex: Executor, i: Omit<IntegratorRow, 'seq'>): Promise<boolean> {
    const rows = await ex.query(
      'INSERT INTO integrators (id, code, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (code) DO NOTHING RETURNING id',
      [i.id, i.code, i.name, i.created_at],
    );
    return rows.length === 1;
  },
  async integrators(ex: Executor, ks: Keyset): Promise<IntegratorRow[]> {
    return ex.query<IntegratorRow>(
      'SELECT * FROM integrators WHERE ($1::bigint IS NULL OR seq < $1) ORDER BY seq DESC LIMIT $2',
      [ks.after, ks.limit],
    );
  },
  /** By code or reference. */
  async integrator(ex: Executor, key: string): Promise<IntegratorRow | null> {
    return (await ex.query<IntegratorRow>('SELECT * FROM integrators WHERE code = $1 OR id = $1', [key]))[0] ?? null;
  },
  apiKeys: (ex: Executor, orgId: string, ks: Keyset) => pageIn<ApiKeyRow>(ex, 'api_keys', orgId, ks),
  apiKey: (ex: Executor, orgId: string, id: string) => oneIn<ApiKeyRow>(ex, 'api_keys', orgId, id),
  async revokeApiKey(ex: Executor, orgId: string, id: string, at: Date): Promise<boolean> {
    const rows = await ex.query(
      'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE organization_id = $1 AND id = $2 RETURNING id',
      [orgId, id, at],
    );
    return rows.length === 1;
  },
  async principalByHash(ex: Executor, hash: string): Promise<Principal | null> {
    const rows = await ex.query(
      `SELECT k.id, k.organization_id, k.name, k.read_only, o.rate_limits, i.code AS integrator_code
       FROM api_keys k JOIN organizations o ON o.id = k.organization_id
       LEFT JOIN integrators i ON i.id = k.integrator_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    const r = rows[0];
    return r
      ? {
          keyId: r.id,
          organizationId: r.organization_id,
          keyName: r.name,
          readOnly: r.read_only,
          rateLimits: r.rate_limits,
          integratorCode: r.integrator_code,
        }
      : null;
  },
  async touchApiKey(ex: Executor, id: string, at: Date) {
    await ex.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [id, at]);
  },
};

export const organizationLookups = {
  async countActiveApiKeys(ex: Executor, orgId: string): Promise<number> {
    const [row] = await ex.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL',
      [orgId],
    );
    return row.n;
  },
  async storeByCode(ex: Executor, code: string): Promise<StoreRow | null> {
    return (await ex.query<StoreRow>('SELECT * FROM stores WHERE code = $1', [code]))[0] ?? null;
  },
  /** Exact-name matches, for operators who name an organization instead of quoting its reference. */
  async organizationsNamed(ex: Executor, name: string): Promise<OrganizationRow[]> {
    return ex.query<OrganizationRow>('SELECT * FROM organizations WHERE name = $1 ORDER BY seq LIMIT 20', [name]);
  },
  async storesNamed(ex: Executor, orgId: string, name: string): Promise<StoreRow[]> {
    return ex.query<StoreRow>('SELECT * FROM stores WHERE organization_id = $1 AND name = $2 ORDER BY seq LIMIT 20', [
      orgId,
      name,
    ]);
  },
  async countOrganizations(ex: Executor): Promise<number> {
    return (await ex.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations'))[0].n;
  },
  async revokeKeysNamed(ex: Executor, orgId: string, names: string[], at: Date): Promise<void> {
    await ex.query(
      'UPDATE api_keys SET revoked_at = $3 WHERE organization_id = $1 AND name = ANY($2::text[]) AND revoked_at IS NULL',
      [orgId, names, at],
    );
  },
};
