import type { Executor } from '../../platform/db/index.ts';
import { ApiError, badRequest, conflict, mustFind } from '../../platform/errors.ts';
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
import { taxDetailsUseCases } from './tax-details.ts';
import { vatOf, vatTreatment } from './vat.ts';

const DAY = 86_400_000;

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
  net: i.net_cents,
  vat: i.vat_cents,
  total: i.total_cents,
  lines: i.lines,
  reason: i.reason,
});

/** `2026-10` → the month's first day and the next month's first day (UTC). */
export function monthOf(month: string): { start: string; end: string; endAt: Date } {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!m) throw badRequest(`month "${month}" is not YYYY-MM`);
  const start = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
  const endAt = new Date(Date.UTC(Number(m[1]), Number(m[2]), 1));
  return { start: start.toISOString().slice(0, 10), end: endAt.toISOString().slice(0, 10), endAt };
}
/** The month before the one `at` falls in, as `YYYY-MM`. */
export const previousMonth = (at: Date) =>
  new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);

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
    },
    mustCover = false,
  ) {
    return repo.book(
      tx,
      {
        id: newReference('Ledgerentry'),
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
      },
      mustCover,
    );
  }

  /** Issues the invoice of one account and month in one transaction; null when there is nothing to bill. */
  async function issueInvoice(accountId: string, month: string): Promise<InvoiceRow | null> {
    const period = monthOf(month);
    return db.tx(async (tx) => {
      await repo.lockAccount(tx, accountId);
      if (await repo.invoiceOfMonth(tx, accountId, period.start)) return null;
      const acc = (await accountsRepo.account(tx, null, accountId))!;
      const entries = await repo.billable(tx, accountId, period.endAt);
      if (entries.length === 0) return null;
      // Only a VAT number checked valid (by the register or an operator) can make it reverse-charged.
      const vat = vatTreatment(acc.billing_address.countryCode, acc.vat_status === 'valid' ? acc.vat_number : null);
      const lines = entries.map((e) => ({
        description: e.description,
        orderReference: e.order_id,
        claimReference: e.claim_id,
        date: e.created_at.toISOString().slice(0, 10),
        netCents: -e.amount_cents,
      }));
      const net = lines.reduce((s, l) => s + l.netCents, 0);
      // Credits that cover the charges make no invoice: the entries stay open and are carried to the
      // first month whose charges exceed them, where each appears once.
      if (net <= 0) return null;
      const vatCents = vatOf(net, vat.ratePercent);
      const issuedAt = clock.now();
      const year = issuedAt.getUTCFullYear();
      const number = `INV-${year}-${String(await repo.nextNumber(tx, `INV-${year}`)).padStart(6, '0')}`;
      const row: InvoiceRow = {
        id: newReference('Invoice'),
        seq: 0,
        organization_id: acc.organization_id,
        account_id: acc.id,
        kind: 'invoice',
        number,
        corrects_invoice_id: null,
        period_start: period.start,
        period_end: period.end,
        issued_at: issuedAt,
        // Prepaid accounts paid from their balance already: nothing is due later.
        due_at: new Date(issuedAt.getTime() + (acc.prepaid ? 0 : acc.payment_term_days) * DAY),
        buyer: {
          accountName: acc.name,
          legalEntity: acc.legal_entity_name,
          vatNumber: acc.vat_number,
          billingAddress: acc.billing_address,
        },
        vat_treatment: vat.treatment,
        vat_rate_percent: vat.ratePercent,
        lines,
        net_cents: net,
        vat_cents: vatCents,
        total_cents: net + vatCents,
        reason: null,
      };
      await repo.insertInvoice(tx, row);
      await repo.markInvoiced(
        tx,
        entries.map((e) => e.id),
        row.id,
      );
      return row;
    });
  }

  return {
    ...taxDetailsUseCases(deps),
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
      },
      lines: Array<{ unit_price_cents: number; quantity: number; canceled_quantity: number }>,
    ): Promise<void> {
      if (o.replaces_order_id) return;
      const amount =
        lines.reduce((s, l) => s + l.unit_price_cents * (l.quantity - l.canceled_quantity), 0) + o.shipping_cents;
      if (amount === 0) return;
      const store = (await deps.organization.storeRowIn(tx, o.organization_id, o.store_id))!;
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
    /** Claims, in the decision's transaction: a refund is credited once per claim, whatever happens twice. */
    async creditRefund(
      tx: Executor,
      r: {
        organizationId: string;
        storeId: string;
        claimId: string;
        orderId: string;
        /** What is refunded: booked once per source. */
        source: string;
        amountCents: number;
        description: string;
      },
    ): Promise<boolean> {
      if (r.amountCents <= 0) return false;
      const store = (await deps.organization.storeRowIn(tx, r.organizationId, r.storeId))!;
      const result = await book(tx, {
        organizationId: r.organizationId,
        accountId: store.account_id,
        kind: 'refund',
        amountCents: r.amountCents,
        source: r.source,
        orderId: r.orderId,
        claimId: r.claimId,
        description: r.description,
      });
      return result === 'booked';
    },
    /** Operator: money received (a prepaid top-up, an invoice paid). */
    async recordPayment(accountRef: string, amountCents: number, note: string) {
      return db.tx(async (tx) => {
        const acc = await account(tx, null, accountRef);
        const id = newReference('Payment');
        await book(tx, {
          organizationId: acc.organization_id,
          accountId: acc.id,
          kind: 'payment',
          amountCents,
          source: id,
          description: note,
        });
        return {
          account: { reference: acc.id, balance: (await accountsRepo.account(tx, null, acc.id))!.balance_cents },
        };
      });
    },
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
        item: toInvoice,
      });
    },
    async invoice(orgId: string | null, ref: string) {
      const row = isReference('Invoice', ref) ? await repo.invoice(db, orgId, ref) : null;
      return toInvoice(mustFind(row, 'Invoice', ref));
    },
    /** The PDF, built anew from the stored invoice: the same document on every download. */
    async invoicePdf(orgId: string | null, ref: string): Promise<{ number: string; pdf: Buffer }> {
      const row = mustFind(isReference('Invoice', ref) ? await repo.invoice(db, orgId, ref) : null, 'Invoice', ref);
      const corrects = row.corrects_invoice_id ? await repo.invoice(db, null, row.corrects_invoice_id) : null;
      return { number: row.number, pdf: await (await import('./pdf.ts')).invoicePdf(row, corrects?.number ?? null) };
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
      return db.tx(async (tx) => {
        const inv = mustFind(
          isReference('Invoice', invoiceRef) ? await repo.invoice(tx, null, invoiceRef) : null,
          'Invoice',
          invoiceRef,
        );
        if (inv.kind !== 'invoice') throw badRequest(`${inv.number} is a credit note; correct the invoice it corrects`);
        await repo.lockAccount(tx, inv.account_id);
        const creditable = inv.total_cents + (await repo.creditedOf(tx, inv.id));
        let net = c.net ?? Math.round((creditable * 100) / (100 + inv.vat_rate_percent));
        // "All that is left": rounding the VAT may put the gross a cent above it; take a cent less.
        if (c.net === undefined && net + vatOf(net, inv.vat_rate_percent) > creditable) net -= 1;
        const vatCents = vatOf(net, inv.vat_rate_percent);
        if (net <= 0 || net + vatCents > creditable)
          throw conflict(
            'invoice_overcredited',
            `Invoice ${inv.number} has ${creditable} cents (incl. VAT) left to credit; a credit note of ${net} net cents does not fit`,
          );
        const issuedAt = clock.now();
        const year = issuedAt.getUTCFullYear();
        const number = `CN-${year}-${String(await repo.nextNumber(tx, `CN-${year}`)).padStart(6, '0')}`;
        const row: InvoiceRow = {
          ...inv,
          id: newReference('Invoice'),
          kind: 'credit_note',
          number,
          corrects_invoice_id: inv.id,
          issued_at: issuedAt,
          due_at: issuedAt,
          lines: [
            {
              description: `Correction of invoice ${inv.number}: ${c.reason}`,
              orderReference: null,
              claimReference: null,
              date: issuedAt.toISOString().slice(0, 10),
              netCents: -net,
            },
          ],
          net_cents: -net,
          vat_cents: -vatCents,
          total_cents: -(net + vatCents),
          reason: c.reason,
        };
        await repo.insertInvoice(tx, row);
        await book(tx, {
          organizationId: inv.organization_id,
          accountId: inv.account_id,
          kind: 'adjustment',
          amountCents: net,
          source: row.id,
          description: `Credit note ${number} for invoice ${inv.number}`,
          invoiceId: row.id,
        });
        return { invoice: toInvoice(row) };
      });
    },
  };
}
