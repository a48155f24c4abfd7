import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderTrackingPage } from '../../src/modules/shipments/tracking.ts';

const shipment = {
  shipped_at: new Date('2026-11-20T09:00:00Z'),
  carrier: 'DHL',
  tracking_number: 'TEST01068144421309',
};
const event = (status: string, occurred: string) => ({
  status,
  occurred_at: new Date(occurred),
  location: null,
  description: null,
});
const page = (events: unknown[], brand: Record<string, unknown> | null = null) =>
  renderTrackingPage({
    shipment: shipment as any,
    brand: brand as any,
    city: 'Berlin',
    countryCode: 'DE',
    events: events as any,
  });
const current = (html: string) => /<li class="done current" aria-current="step">([^<]+)<\/li>/.exec(html)?.[1];

describe('tracking page', () => {
  it('a delivery problem keeps the progress the parcel made and marks that step', () => {
    const html = page([
      event('in_transit', '2026-11-20T18:00:00Z'),
      event('out_for_delivery', '2026-11-22T07:00:00Z'),
      event('exception', '2026-11-22T15:00:00Z'),
    ]);
    assert.equal(current(html), 'Out for delivery');
    assert.match(html, /<ol class="progress trouble"/);
    assert.match(html, /There is a problem with the delivery/);
    assert.match(html, /22 Nov, 16:00 CET/, 'history times name their zone (Amsterdam)');
    assert.equal(current(page([event('returned', '2026-11-21T08:00:00Z')])), 'Shipped');
    assert.equal(current(page([])), 'Shipped');
    assert.doesNotMatch(page([event('delivered', '2026-11-21T08:00:00Z')]), /progress trouble/);
  });

  it('the header text stays readable on a light brand colour', () => {
    const brand = (primary: string) => ({ name: 'Shop', primaryColor: primary, secondaryColor: '#ffffff' });
    assert.match(page([], brand('#ffe14d')), /header \{ background: #ffe14d; color: #1b1b1b;/);
    assert.match(page([], brand('#ffe14d')), /a \{ color: #1b1b1b; \}/, 'links too');
    assert.match(page([], brand('#c2185b')), /header \{ background: #c2185b; color: #ffffff;/);
  });
});
