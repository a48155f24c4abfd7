import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { amsterdamYear, monthOf, previousMonth } from '../../src/modules/billing/calendar.ts';
import { invoiceLines, vatGroups } from '../../src/modules/billing/invoice-lines.ts';

describe('billing months are Amsterdam calendar months', () => {
  it('October ends at 23:00 UTC on 31 October (winter time), June at 22:00 UTC (summer time)', () => {
    assert.equal(monthOf('2026-10').endAt.toISOString(), '2026-10-31T23:00:00.000Z');
    assert.equal(monthOf('2026-10').startAt.toISOString(), '2026-09-30T22:00:00.000Z');
    assert.equal(monthOf('2026-06').endAt.toISOString(), '2026-06-30T22:00:00.000Z');
    assert.equal(monthOf('2026-12').end, '2027-01-01');
  });

  it('a charge at 23:30 UTC on 31 October belongs to November and is dated 1 November', () => {
    const at = new Date('2026-10-31T23:30:00Z');
    assert.ok(at >= monthOf('2026-10').endAt);
    assert.equal(previousMonth(new Date('2026-11-30T23:30:00Z')), '2026-11');
    assert.equal(amsterdamYear(new Date('2026-12-31T23:30:00Z')), 2027);
    const { lines } = invoiceLines(
      [
        {
          kind: 'refund',
          amountCents: 100,
          description: 'Refund',
          orderId: null,
          claimId: null,
          createdAt: at,
          detail: null,
        },
      ],
      { billingCountry: 'NL', billingPostcode: '1015 CV', validVatNumber: null },
      new Map(),
    );
    assert.equal(lines[0].date, '2026-11-01');
  });

  it('items and shipping to one order share its VAT; totals are rounded once per rate', () => {
    const detail = {
      order: {
        reference: 'Order_1',
        customIdentifier: 'SHOP-1',
        store: { reference: 'Store_1', code: 'S1', name: 'Shop' },
        shipTo: { country: 'US', postcode: '10001' },
        shippingLevel: 'tracked',
      },
      items: [{ productReference: 'Product_1', name: 'Case', sku: 'CASE-1', quantity: 3, unitPriceCents: 333 }],
      shippingCents: 1695,
    };
    const { lines, decisions } = invoiceLines(
      [
        {
          kind: 'charge',
          amountCents: -2694,
          description: '',
          orderId: 'Order_1',
          claimId: null,
          createdAt: new Date('2026-10-05T09:00:00Z'),
          detail,
        },
        {
          kind: 'charge',
          amountCents: -2694,
          description: '',
          orderId: 'Order_2',
          claimId: null,
          createdAt: new Date('2026-10-05T09:00:00Z'),
          detail: {
            ...detail,
            order: { ...detail.order, reference: 'Order_2', shipTo: { country: 'NL', postcode: '1015 CV' } },
          },
        },
      ],
      { billingCountry: 'US', billingPostcode: '10001', validVatNumber: null },
      new Map(),
    );
    assert.deepEqual(
      lines.map((l) => [l.orderReference, l.kind, l.netCents, l.vat?.category]),
      [
        ['Order_1', 'item', 999, 'G'],
        ['Order_1', 'shipping', 1695, 'G'],
        ['Order_2', 'item', 999, 'S'],
        ['Order_2', 'shipping', 1695, 'S'],
      ],
    );
    assert.deepEqual(
      vatGroups(lines, decisions).map((g) => [g.category, g.ratePercent, g.netCents, g.vatCents]),
      [
        ['S', 21, 2694, 566],
        ['G', 0, 2694, 0],
      ],
    );
  });
});
