import type { Executor } from '../../platform/db/index.ts';
import { ApiError } from '../../platform/errors.ts';
import type { BookFn } from './book.ts';
import { combinedShippingOf } from './combined-shipping.ts';
import type { BillingDeps } from './deps.ts';
import type { ChargeDetail } from './invoice-lines.ts';
import { type RefundIn, creditRefundsOf } from './refund-credit-notes.ts';
import { accountsRepo } from './repo.ts';

/** What other modules book, in their own transactions: orders' charges and refunds. */
export function chargeUseCases(deps: BillingDeps, book: BookFn) {
  return {
    /**
     * Orders, in the production-start transaction: the products and shipping as the order shows
     * them (a combined order's shipping comes with its shipment). Replacement orders cost nothing.
     * A prepaid account whose balance does not cover the charge refuses it
     * (`409 insufficient_balance`): the order stays where it was.
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
      const store = (await deps.organization.storeIn(tx, o.organization_id, o.store_id))!;
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
          accountId: store.accountId,
          kind: 'charge',
          amountCents: -amount,
          source: o.id,
          orderId: o.id,
          description: o.shipping_cents > 0 ? 'Products and shipping' : 'Products',
          detail,
        },
        true,
      );
      if (result === 'uncovered') {
        const acc = (await accountsRepo.account(tx, null, store.accountId))!;
        throw new ApiError(
          'insufficient_balance',
          `Account ${acc.id} is prepaid and its balance (${acc.balance_cents} cents) does not cover order ${o.id} (${amount} cents); the order stays ${'pending'} until the account is topped up`,
        );
      }
    },
    chargeCombinedShipment: combinedShippingOf(deps, book),
    /**
     * An operator's cancelation in production (or any single refund): booked once per source; a
     * credit note of the invoice that billed the order when it is invoiced already.
     */
    async creditRefund(tx: Executor, r: RefundIn): Promise<boolean> {
      return (await creditRefundsOf(deps, book, tx, [r], r.description)) > 0;
    },
    /**
     * A claim's decision, in its transaction: every refund it awards (items, shipping, per order),
     * each booked once per source, and one credit note per invoice they correct.
     */
    async creditClaimRefunds(tx: Executor, claimId: string, refunds: Omit<RefundIn, 'claimId'>[]): Promise<number> {
      return creditRefundsOf(
        deps,
        book,
        tx,
        refunds.map((r) => ({ ...r, claimId })),
        `Refund decided on claim ${claimId}`,
      );
    },
  };
}
