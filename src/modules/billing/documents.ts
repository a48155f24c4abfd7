import type { Executor } from '../../platform/db/index.ts';
import { mustFind } from '../../platform/errors.ts';
import { type Keyset, type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference } from '../../platform/ids.ts';
import type { BillingDeps } from './deps.ts';
import { type BillingAccountRow, type InvoiceRow, billingRepo as repo } from './repo.ts';
import type { PaymentUseCases } from './payments.ts';
import { paymentsRepo } from './repo-payments.ts';
import { toEntry, toInvoice } from './views.ts';

/**
 * What an account's money looks like from outside, read-only: the ledger, the invoices and credit
 * notes as JSON, PDF and UBL, for the operator (`orgId` null) and the partner API.
 */
export function documentUseCases(
  deps: BillingDeps,
  payments: Pick<PaymentUseCases, 'withPayments'>,
  account: (ex: Executor, orgId: string | null, ref: string) => Promise<BillingAccountRow>,
) {
  const { db, cursors } = deps;
  const simulated = deps.config.env === 'test';
  const docs = {
    /** The ledger, newest first, with the balance it sums to. `orgId` null: operator. */
    async ledger(orgId: string | null, accountRef: string, page: PageRequest) {
      const acc = await account(db, orgId, accountRef);
      const sums = await repo.sum(db, acc.id);
      return {
        balance: sums.real,
        ...(simulated ? { wouldBeBalance: sums.real + sums.simulated } : {}),
        ...(await listPage(cursors, page, {
          plural: 'entries',
          scope: `ledger:${acc.id}`,
          load: (ks: Keyset) => repo.entries(db, acc.id, ks),
          item: toEntry,
        })),
      };
    },
    async invoices(orgId: string | null, accountRef: string, page: PageRequest) {
      const acc = await account(db, orgId, accountRef);
      return listPage(cursors, page, {
        plural: 'invoices',
        scope: `invoices:${acc.id}`,
        load: (ks: Keyset) => repo.invoices(db, acc.id, ks),
        items: (rows: InvoiceRow[]) => payments.withPayments(db, rows, toInvoice),
      });
    },
    async invoice(orgId: string | null, ref: string) {
      const row = isReference('Invoice', ref) ? await repo.invoice(db, orgId, ref) : null;
      return (await payments.withPayments(db, [mustFind(row, 'Invoice', ref)], toInvoice))[0];
    },
    /**
     * Partner API: the account's invoices. The test environment invoices nothing; it shows what the
     * simulated entries would add up to per month instead, labelled as such.
     */
    async partnerInvoices(orgId: string, accountRef: string, page: PageRequest) {
      const acc = await account(db, orgId, accountRef);
      const list = await docs.invoices(orgId, acc.id, page);
      if (!simulated) return list;
      return {
        ...list,
        simulated: {
          note: 'Test environment: nothing is invoiced. These are the net amounts (before VAT) the simulated entries would add up to per month in production.',
          months: await paymentsRepo.simulatedMonths(db, acc.id),
        },
      };
    },
    /** Partner API: an invoice of this account (404 for any other, in or outside the organization). */
    async accountInvoice(orgId: string, accountRef: string, ref: string) {
      const inv = await docs.invoice(orgId, ref);
      if (inv.accountReference !== accountRef) throw mustFind(null, 'Invoice', ref);
      return inv;
    },
    async accountInvoicePdf(orgId: string, accountRef: string, ref: string) {
      await docs.accountInvoice(orgId, accountRef, ref);
      return docs.invoicePdf(orgId, ref);
    },
    /** The PDF, built anew from the stored invoice: the same document on every download. */
    async invoicePdf(orgId: string | null, ref: string): Promise<{ number: string; pdf: Buffer }> {
      const row = mustFind(isReference('Invoice', ref) ? await repo.invoice(db, orgId, ref) : null, 'Invoice', ref);
      const corrects = row.corrects_invoice_id ? await repo.invoice(db, null, row.corrects_invoice_id) : null;
      return {
        number: row.number,
        pdf: await (await import('./pdf.ts')).invoicePdf(row, corrects?.number ?? null, deps.config.seller),
      };
    },
    /**
     * The UBL 2.1 (Peppol BIS Billing 3.0) XML of an invoice or credit note, built anew from the
     * stored document like its PDF. `orgId` null: operator.
     */
    async invoiceUbl(
      orgId: string | null,
      ref: string,
    ): Promise<{ number: string; kind: InvoiceRow['kind']; xml: string }> {
      const row = mustFind(isReference('Invoice', ref) ? await repo.invoice(db, orgId, ref) : null, 'Invoice', ref);
      const corrects = row.corrects_invoice_id ? await repo.invoice(db, null, row.corrects_invoice_id) : null;
      const { invoiceUblXml } = await import('./ubl.ts');
      return {
        number: row.number,
        kind: row.kind,
        xml: invoiceUblXml(row, corrects?.number ?? null, deps.config.seller),
      };
    },
  };
  return docs;
}
