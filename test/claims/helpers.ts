import assert from 'node:assert/strict';
import { type TestApp, call } from '../support/app.ts';
import { png } from '../images/fixtures.ts';
import { ADDRESS, createOrder, orderBody, products, uploadImage } from '../orders/helpers.ts';

export { expectError } from '../orders/helpers.ts';

export const DAY = 24 * 3600_000;
/** A Monday; Amsterdam is at +02:00 then, so the ship day is 2026-06-01. */
export const SHIPPED = '2026-06-01T10:00:00.000Z';

export const at = (iso: string, plusMs = 0) => new Date(new Date(iso).getTime() + plusMs);

/**
 * An order of `quantities` (one line each, the clear print case) shipped at `shippedAt`. The clock
 * is moved to the ship time so the shipment may carry it; tests then move it where they need.
 */
export async function shippedOrder(
  t: TestApp,
  opts: {
    shippedAt?: string;
    quantities?: number[];
    address?: Record<string, string>;
    key?: string;
    level?: string;
  } = {},
) {
  const shippedAt = opts.shippedAt ?? SHIPPED;
  t.clock.set(at(shippedAt, -DAY));
  const key = opts.key ?? t.key;
  const image = await uploadImage(t, key);
  const p = products(t);
  const body = orderBody(t, image, {
    dropshipAddress: opts.address ?? ADDRESS,
    orderlines: (opts.quantities ?? [2]).map((q) => ({
      productReference: p.clear,
      imageReference: image,
      quantity: q,
    })),
    ...(opts.level ? { dropshipMinimalShippingLevel: opts.level } : {}),
  });
  const order = await createOrder(t, body, key);
  const res = await call(t, 'POST', `/v2/test-helpers/orders/${order}/start-production`, { key });
  assert.equal(res.statusCode, 204, res.body);
  t.clock.set(shippedAt);
  const shipped = await call(t, 'POST', '/v2/test-helpers/shipments', {
    key,
    body: { shipment: { orderReferences: [order], shippedAt } },
  });
  assert.equal(shipped.statusCode, 200, shipped.body);
  return { order, shipment: shipped.data.shipment.reference as string, image, product: p.clear };
}

let shade = 0;
export async function uploadEvidence(t: TestApp, key = t.key): Promise<string> {
  const res = await call(t, 'POST', '/v2/evidence', {
    key,
    payload: await png(40, 30, ++shade),
    headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(res.data.evidence.reference, /^Evidence_[0-9a-hjkmnp-tv-z]{26}$/);
  return res.data.evidence.reference;
}

export async function categories(t: TestApp): Promise<Record<string, string>> {
  const res = await call(t, 'GET', '/v2/claimcategories');
  assert.equal(res.statusCode, 200, res.body);
  return Object.fromEntries(res.data.claimcategories.map((c: any) => [c.name, c.reference]));
}

export const packageMissing = (t: TestApp, shipmentReference: string, evidenceReferences?: string[], key = t.key) =>
  call(t, 'POST', '/v2/claim-package-missing', {
    key,
    body: { claim: { shipmentReference, ...(evidenceReferences ? { evidenceReferences } : {}) } },
  });

export const itemIssues = (t: TestApp, claim: Record<string, unknown>, key = t.key) =>
  call(t, 'POST', '/v2/claim-item-issues', { key, body: { claim } });

export async function getClaim(t: TestApp, ref: string, key = t.key) {
  const res = await call(t, 'GET', `/v2/claims/${ref}`, { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.claim;
}

export const decide = (t: TestApp, ref: string, decision: Record<string, unknown>, key = t.key) =>
  call(t, 'POST', `/v2/test-helpers/claims/${ref}/decide`, { key, body: { decision } });

/** A decision body: one entry per `[orderlineIndex, replacement, refund, rejection]`. */
export function decision(
  status: 'resolved' | 'rejected',
  lines: Array<[number, number, number, number]>,
  extra: Record<string, unknown> = {},
) {
  return {
    status,
    refundShippingCosts: false,
    comment: 'Checked by support',
    claimlines: lines.map(([orderlineIndex, replacementQuantity, refundQuantity, rejectionQuantity]) => ({
      orderlineIndex,
      replacementQuantity,
      refundQuantity,
      rejectionQuantity,
      comment: `line ${orderlineIndex}`,
    })),
    ...extra,
  };
}

/**
 * A claim of wrong items (`claimlines`: [orderlineIndex, quantity]) on a fresh order of
 * `quantities`, filed ten days after shipping; `cat` holds the category references by name.
 */
export async function itemClaim(
  t: TestApp,
  cat: Record<string, string>,
  quantities: number[],
  claimlines: Array<[number, number]>,
) {
  const s = await shippedOrder(t, { quantities });
  t.clock.set(at(SHIPPED, 10 * DAY));
  const res = await itemIssues(t, {
    shipmentReference: s.shipment,
    orderReference: s.order,
    claimlines: claimlines.map(([orderlineIndex, quantity]) => ({
      orderlineIndex,
      quantity,
      claimcategoryReference: cat['Wrong item'],
    })),
  });
  assert.equal(res.statusCode, 200, res.body);
  return { ...s, claim: res.data.claim.reference as string };
}
