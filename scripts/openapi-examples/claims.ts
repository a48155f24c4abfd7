import { type Flow, type Json, MISSING, png } from './recorder.ts';
import type { Ship, Shipped } from './shipments.ts';

/** Evidence, an item claim decided with a replacement, a missing package claimed and retracted. */
export async function captureClaims({ r }: Flow, ship: Ship, shipped: Shipped): Promise<void> {
  const evidence = await r.send(
    'uploadEvidence',
    'POST',
    '/v2/evidence',
    { payload: await png(400, 300, 120), headers: { 'content-type': 'application/octet-stream' } },
    200,
  );
  await r.send('uploadEvidence', 'POST', '/v2/evidence', {
    payload: Buffer.from('not an image'),
    headers: { 'content-type': 'application/octet-stream' },
  });
  const categories = await r.send('listClaimcategories', 'GET', '/v2/claimcategories', {}, 200);
  await r.send('listClaimcategories', 'GET', '/v2/claimcategories', { key: null }, 401);
  const damaged =
    categories.data.claimcategories.find((c: Json) => /damage/i.test(c.name)) ??
    categories.data.claimcategories.find((c: Json) => !/package missing/i.test(c.name));
  const claimlines = [
    {
      orderlineIndex: 1,
      quantity: 1,
      claimcategoryReference: damaged.reference,
      evidenceReferences: [evidence.data.evidence.reference],
    },
  ];
  const { shipment: shipmentReference, order: orderReference } = shipped;
  const comment = 'One case arrived with a cracked corner.';
  const claim = await r.send(
    'claimItemIssues',
    'POST',
    '/v2/claim-item-issues',
    { body: { claim: { shipmentReference, orderReference, comment, claimlines } } },
    200,
  );
  const tooMany = [{ ...claimlines[0], quantity: 5 }];
  await r.send(
    'claimItemIssues',
    'POST',
    '/v2/claim-item-issues',
    { body: { claim: { shipmentReference, orderReference, claimlines: tooMany } } },
    400,
  );
  const claimReference = claim.data.claim.reference;
  await r.send('listClaims', 'GET', '/v2/claims?limit=2', {}, 200);
  await r.send('listClaims', 'GET', '/v2/claims?closedAfter=yesterday', {}, 400);
  await r.send('getClaim', 'GET', `/v2/claims/${claimReference}`, {}, 200);
  await r.send('getClaim', 'GET', `/v2/claims/${MISSING('Claim')}`, {}, 404);
  const decision = {
    decision: {
      status: 'resolved',
      refundShippingCosts: false,
      comment: 'A replacement is on its way.',
      claimlines: [
        { orderlineIndex: 1, replacementQuantity: 1, refundQuantity: 0, rejectionQuantity: 0, comment: 'Replaced' },
      ],
    },
  };
  const decide = (claim: string) => `/v2/test-helpers/claims/${claim}/decide`;
  await r.send('testDecideClaim', 'POST', decide(claimReference), { body: decision }, 204);
  await r.send('testDecideClaim', 'POST', decide(MISSING('Claim')), { body: decision }, 404);
  const second = await ship('shop-42-order-1003');
  const missing = await r.send(
    'claimPackageMissing',
    'POST',
    '/v2/claim-package-missing',
    { body: { claim: { shipmentReference: second.shipment } } },
    200,
  );
  await r.send(
    'claimPackageMissing',
    'POST',
    '/v2/claim-package-missing',
    { body: { claim: { shipmentReference: MISSING('Shipment') } } },
    404,
  );
  await r.send('retractClaim', 'POST', `/v2/claims/${missing.data.claim.reference}/retract`, {}, 204);
  await r.send('retractClaim', 'POST', `/v2/claims/${claimReference}/retract`, {}, 409);
}
