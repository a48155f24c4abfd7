import type { Executor } from '../../platform/db/index.ts';

export type VatStatus = 'valid' | 'invalid' | 'unchecked';

/** The fields of an account that decide its invoices' VAT. */
export interface TaxDetails {
  legal_entity_name: string;
  vat_number: string | null;
  billing_address: Record<string, string>;
}

/** How an account's VAT number was last checked, and by whom. */
export interface VatCheckRecord {
  vat_status: VatStatus;
  vat_checked_at: Date | null;
  vat_checked_by: string | null;
  vat_check_detail: string | null;
}

export interface TaxRequestRow extends TaxDetails {
  id: string;
  seq: number;
  organization_id: string;
  account_id: string;
  check_status: VatStatus;
  check_detail: string;
  requested_by: string;
  requested_at: Date;
  status: 'pending' | 'approved' | 'rejected' | 'replaced';
  decided_by: string | null;
  decided_at: Date | null;
  decision_note: string | null;
}

const request = (r: TaxRequestRow) => Object.assign(r, { seq: Number(r.seq) });

/** All SQL of the accounts' tax details and the partners' requests to change them. */
export const taxRepo = {
  /** Sets the tax details and their check in one statement (an operator's change or approval). */
  async setTaxDetails(ex: Executor, accountId: string, d: TaxDetails, check: VatCheckRecord): Promise<void> {
    await ex.query(
      `UPDATE accounts SET legal_entity_name = $2, vat_number = $3, billing_address = $4,
         vat_status = $5, vat_checked_at = $6, vat_checked_by = $7, vat_check_detail = $8
       WHERE id = $1`,
      [
        accountId,
        d.legal_entity_name,
        d.vat_number,
        JSON.stringify(d.billing_address),
        check.vat_status,
        check.vat_checked_at,
        check.vat_checked_by,
        check.vat_check_detail,
      ],
    );
  },
  /** A new pending request; the account's earlier pending one, if any, is marked replaced. */
  async insertRequest(
    ex: Executor,
    r: Omit<TaxRequestRow, 'seq' | 'status' | 'decided_by' | 'decided_at' | 'decision_note'>,
  ) {
    await ex.query(
      `UPDATE account_tax_requests SET status = 'replaced', decided_at = $2, decided_by = $3
       WHERE account_id = $1 AND status = 'pending'`,
      [r.account_id, r.requested_at, r.requested_by],
    );
    await ex.query(
      `INSERT INTO account_tax_requests (id, organization_id, account_id, legal_entity_name, vat_number, billing_address,
         check_status, check_detail, requested_by, requested_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        r.id,
        r.organization_id,
        r.account_id,
        r.legal_entity_name,
        r.vat_number,
        JSON.stringify(r.billing_address),
        r.check_status,
        r.check_detail,
        r.requested_by,
        r.requested_at,
      ],
    );
  },
  /** The request, locked for its decision. */
  async requestForUpdate(ex: Executor, id: string): Promise<TaxRequestRow | null> {
    const [r] = await ex.query<TaxRequestRow>('SELECT * FROM account_tax_requests WHERE id = $1 FOR UPDATE', [id]);
    return r ? request(r) : null;
  },
  async decide(
    ex: Executor,
    id: string,
    d: { status: 'approved' | 'rejected'; by: string; at: Date; note: string | null },
  ): Promise<void> {
    await ex.query(
      'UPDATE account_tax_requests SET status = $2, decided_by = $3, decided_at = $4, decision_note = $5 WHERE id = $1',
      [id, d.status, d.by, d.at, d.note],
    );
  },
  /** The account's pending request, or null. `orgId` null: any organization (operator). */
  async pendingOf(ex: Executor, orgId: string | null, accountId: string): Promise<TaxRequestRow | null> {
    const [r] = await ex.query<TaxRequestRow>(
      `SELECT * FROM account_tax_requests WHERE account_id = $1 AND status = 'pending'
         AND ($2::text IS NULL OR organization_id = $2)`,
      [accountId, orgId],
    );
    return r ? request(r) : null;
  },
  /** The latest decided request of an account (what the partner last heard back). */
  async lastDecidedOf(ex: Executor, orgId: string | null, accountId: string): Promise<TaxRequestRow | null> {
    const [r] = await ex.query<TaxRequestRow>(
      `SELECT * FROM account_tax_requests WHERE account_id = $1 AND status IN ('approved', 'rejected')
         AND ($2::text IS NULL OR organization_id = $2) ORDER BY seq DESC LIMIT 1`,
      [accountId, orgId],
    );
    return r ? request(r) : null;
  },
  /** Every pending request, oldest first (the operators' queue). */
  async pending(ex: Executor, limit: number): Promise<TaxRequestRow[]> {
    const rows = await ex.query<TaxRequestRow>(
      `SELECT * FROM account_tax_requests WHERE status = 'pending' ORDER BY seq LIMIT $1`,
      [limit],
    );
    return rows.map(request);
  },
};
