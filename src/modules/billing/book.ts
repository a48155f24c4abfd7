import type { Executor } from '../../platform/db/index.ts';
import { newReference } from '../../platform/ids.ts';
import type { BillingDeps } from './deps.ts';
import type { ChargeDetail } from './invoice-lines.ts';
import { type EntryKind, billingRepo as repo } from './repo.ts';

/** A ledger entry as the use cases book it. */
export interface EntryIn {
  organizationId: string;
  accountId: string;
  kind: EntryKind;
  amountCents: number;
  /** What the entry is for: booked once per kind and source, whatever happens twice. */
  source: string;
  orderId?: string;
  claimId?: string;
  description: string;
  /** The document the entry is already on (a credit note): never billed by a monthly invoice. */
  invoiceId?: string;
  detail?: ChargeDetail;
  /** The entry's own reference, when the caller needs it (a payment put against invoices). */
  id?: string;
}

export type BookFn = (tx: Executor, e: EntryIn, mustCover?: boolean) => Promise<'booked' | 'repeat' | 'uncovered'>;

/**
 * Books entries in the caller's transaction, at the clock's time. The test environment books
 * every entry as `simulated`: shown, never in the balance or on an invoice.
 */
export function bookerOf(deps: BillingDeps): BookFn {
  const simulated = deps.config.env === 'test';
  return (tx, e, mustCover = false) =>
    repo.book(
      tx,
      {
        id: e.id ?? newReference('Ledgerentry'),
        organization_id: e.organizationId,
        account_id: e.accountId,
        kind: e.kind,
        amount_cents: e.amountCents,
        source: e.source,
        order_id: e.orderId ?? null,
        claim_id: e.claimId ?? null,
        description: e.description,
        simulated,
        created_at: deps.clock.now(),
        invoice_id: e.invoiceId ?? null,
        detail: e.detail ?? null,
      },
      mustCover,
    );
}
