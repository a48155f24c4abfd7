import type { Executor } from '../../platform/db/index.ts';
import { ApiError, badRequest, mustFind } from '../../platform/errors.ts';
import { type Keyset, type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { BillingDeps } from './deps.ts';
import {
  type BillingAccountRow,
  type EntryKind,
  type InvoiceRow,
  type LedgerRow,
  accountsRepo,
  billingRepo as repo,
} from './repo.ts';
import { monthOf, previousMonth } from './calendar.ts';
import { insertRefundCreditNote, issueCreditNoteOf } from './credit-notes.ts';
import type { ChargeDetail } from './invoice-lines.ts';
import { issueInvoiceOf } from './issue-invoice.ts';
import { bankImportUseCases } from './bank-import.ts';
import { paymentUseCases } from './payments.ts';
import { paymentsRepo } from './repo-payments.ts';
import { taxDetailsUseCases } from './tax-details.ts';

export const toEntry = (e: LedgerRow) => ({
  reference: e.id,
  kind: e.kind,
  /** EUR cents: charges negative, refunds and payments positive. */
  amount: e.amount_cents,
  description: e.description,
  orderReference: e.order_id,
  claimReference: e.claim_id,
  /** Test environment: what would have been booked in production; not in the balance, never invoiced. */
  simulated: e.simulated,
  invoiceReference: e.invoice_id,
  created: e.created_at.toISOString(),
});

export const toInvoice = (i: InvoiceRow) => ({
  reference: i.id,
  kind: i.kind,
  number: i.number,
  accountReference: i.account_id,
  correctsInvoiceReference: i.corrects_invoice_id,
  periodStart: i.period_start,
  periodEnd: i.period_end,
  issued: i.issued_at.toISOString(),
  due: i.due_at.toISOString(),
  vatTreatment: i.vat_treatment,
  vatRatePercent: i.vat_rate_percent,
  /** Totals by VAT category and rate, each with the wording and legal reference the invoice prints. */
  vatBreakdown: i.vat_breakdown.map((g) => ({
    category: g.category,
    treatment: g.treatment,
    ratePercent: g.ratePercent,
    net: g.netCents,
    vat: g.vatCents,
    note: g.wording,
    legalReference: g.legalReference,
  })),
  net: i.net_cents,
  vat: i.vat_cents,
  total: i.total_cents,
  lines: i.lines,
  reason: i.reason,
});

export { monthOf, previousMonth } from './calendar.ts';

export type BillingService = ReturnType<typeof billingService>;

/**
 * The money of an account: a ledger whose sum is the balance, booked in the callers' transactions
 * (orders at production start, claims at a refund decision), and the monthly invoices built from it.
 * The test environment books every entry as `simulated`: shown, never in the balance or on an invoice.
 */
export function billingService(deps: BillingDeps) {
  const { db, clock, cursors } = deps;
  const simulated = deps.config.env === 'test';

  async function account(ex: Executor, orgId: string | null, ref: string): Promise<BillingAccountRow> {
    return mustFind(isReference('Account', ref) ? await accountsRepo.account(ex, orgId, ref) : null, 'Account', ref);
  }

  async function book(
    tx: Executor,
    e: {
      organizationId: string;
      accountId: string;
      kind: EntryKind;
      amountCents: number;
      source: string;
      orderId?: string;
      claimId?: string;
      description: string;
      /** The document the entry is already on (a credit note): never billed by a monthly invoice. */
      invoiceId?: string;
      detail?: ChargeDetail;
      /** The entry's own reference, when the caller needs it (a payment put against invoices). */
      id?: string;
    },
    mustCover = false,
  ) {
    return repo.book(
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
        created_at: clock.now(),
        invoice_id: e.invoiceId ?? null,
        detail: e.detail ?? null,
      },
      mustCover,
    );
  }

  const issueInvoice = (accountId: string, month: string) => issueInvoiceOf(deps, accountId, month);

  const payments = paymentUseCases(deps, book, account);
  return {
    ...taxDetailsUseCases(deps),
    ...bankImportUseCases(deps, payments.receive, payments.toppedUp),
    /**
     * Orders, in the production-start transaction: the products and shipping as the order shows
     * them. Replacement orders cost nothing. A prepaid account whose balance does not cover the
     * charge refuses it (`409 insufficient_balance`): the order stays where it was.
     */
    async chargeOrder(
      tx: Executor,
      o: {
        id: string;
        organization_id: string;
        store_id: string;
        shipping_cents: number;
        replaces_order_id: string | null;
        custom_identifier: string | null;
        shipping_level: string | null;
      },
      lines: Array<{ product_id: string; unit_price_cents: number; quantity: number; canceled_quantity: number }>,
      /** What the invoice names: the products (name, SKU) and where the goods go. */
      about: {
        products: ReadonlyMap<string, { name: string; sku: string | null }>;
        shipTo: { country: string; postcode: string } | null;
      },
    ): Promise<void> {
      if (o.replaces_order_id) return;
      const amount =
        lines.reduce((s, l) => s + l.unit_price_cents * (l.quantity - l.canceled_quantity), 0) + o.shipping_cents;
      if (amount === 0) return;
      const store = (await deps.organization.storeRowIn(tx, o.organization_id, o.store_id))!;
      const detail: ChargeDetail = {
        order: {
          reference: o.id,
          customIdentifier: o.custom_identifier,
          store: { reference: store.id, code: store.code, name: store.name },
          shipTo: about.shipTo,
          shippingLevel: o.shipping_level,
        },
        items: lines
          .filter((l) => l.quantity > l.canceled_quantity)
          .map((l) => ({
            productReference: l.product_id,
            name: about.products.get(l.product_id)?.name ?? l.product_id,
            sku: about.products.get(l.product_id)?.sku ?? null,
            quantity: l.quantity - l.canceled_quantity,
            unitPriceCents: l.unit_price_cents,
          })),
        shippingCents: o.shipping_cents,
      };
      const result = await book(
        tx,
        {
          organizationId: o.organization_id,
          accountId: store.account_id,
          kind: 'charge',
          amountCents: -amount,
          source: o.id,
          orderId: o.id,
          description: 'Products and shipping',
          detail,
        },
        true,
      );
      if (result === 'uncovered') {
        const acc = (await accountsRepo.account(tx, null, store.account_id))!;
        throw new ApiError(
          'insufficient_balance',
          `Account ${acc.id} is prepaid and its balance (${acc.balance_cents} cents) does not cover order ${o.id} (${amount} cents); the order stays ${'pending'} until the account is topped up`,
        );
      }
    },
    /**
     * Claims, in the decision's transaction, and operator cancelations in production: a refund is
     * credited once per source, whatever happens twice.
     */
    async creditRefund(
      tx: Executor,
      r: {
        organizationId: string;
        storeId: string;
        /** The claim decided, if a claim caused the refund. */
        claimId?: string;
        orderId: string;
        /** What is refunded: booked once per source. */
        source: string;
        amountCents: number;
        description: string;
      },
    ): Promise<boolean> {
      if (r.amountCents <= 0) return false;
      const store = (await deps.organization.storeRowIn(tx, r.organizationId, r.storeId))!;
      // Once the order's charge is on an issued invoice, its refund is a credit note of that invoice;
      // before, it is a line of the invoice that bills the charge.
      const invoiced = simulated ? null : await repo.chargeInvoiceOf(tx, r.orderId);
      const creditNoteId = invoiced ? newReference('Invoice') : undefined;
      const result = await book(tx, {
        organizationId: r.organizationId,
        accountId: store.account_id,
        kind: 'refund',
        amountCents: r.amountCents,
        source: r.source,
        orderId: r.orderId,
        claimId: r.claimId,
        description: r.description,
        invoiceId: creditNoteId,
      });
      if (result === 'booked' && invoiced && creditNoteId)
        await insertRefundCreditNote(deps, tx, creditNoteId, invoiced, r);
      return result === 'booked';
    },
    ...payments,
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
      const list = await this.invoices(orgId, acc.id, page);
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
      const inv = await this.invoice(orgId, ref);
      if (inv.accountReference !== accountRef) throw mustFind(null, 'Invoice', ref);
      return inv;
    },
    async accountInvoicePdf(orgId: string, accountRef: string, ref: string) {
      await this.accountInvoice(orgId, accountRef, ref);
      return this.invoicePdf(orgId, ref);
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
    issueInvoice,
    /**
     * Every account's invoice of a month (`YYYY-MM`, default: the month before now). Safe to run
     * again: an account has one invoice a month; a month still running is refused.
     */
    async issueMonthlyInvoices(month = previousMonth(clock.now())) {
      const period = monthOf(month);
      if (period.endAt.getTime() > clock.now().getTime())
        throw badRequest(`month ${month} has not ended; its invoices are issued from ${period.end}`);
      const issued: ReturnType<typeof toInvoice>[] = [];
      for (const accountId of await repo.accountsToBill(db, period.endAt)) {
        const row = await issueInvoice(accountId, month);
        if (row) issued.push(toInvoice(row));
      }
      return { month, invoices: issued };
    },
    /**
     * A correction of an issued invoice: a credit note of the given net amount (default: all not yet
     * credited), with its own gap-free number; the amount goes back to the account's ledger.
     */
    async issueCreditNote(invoiceRef: string, c: { reason: string; net?: number }) {
      return { invoice: toInvoice(await issueCreditNoteOf(deps, book, invoiceRef, c)) };
    },
  };
}
