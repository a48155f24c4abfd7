import type { Static } from 'typebox';
import { badRequest } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import { type FilingDeps, bodyShipment, checkWarranty, insertClaim } from './filing.ts';
import { claimsRepo as repo } from './repo.ts';
import { type ItemIssuesBody, MAX_EVIDENCE } from './schemas.ts';

/** A claim for items that arrived wrong: the lines of one shipped order, each with its category. */
export async function fileItemIssues(
  deps: FilingDeps,
  orgId: string,
  createdBy: string,
  body: Static<typeof ItemIssuesBody>,
): Promise<{ reference: string }> {
  const { db, clock, orders, evidence } = deps;
  const input = body.claim;
  const f = 'body.claim';
  const s = await bodyShipment(deps, orgId, input.shipmentReference);
  const order = await orders.order(db, orgId, input.orderReference);
  if (!order || order.shipmentId !== s.id)
    throw badRequest(
      `${f}.orderReference ${input.orderReference} was not shipped in shipment ${s.id}`,
      'order_not_in_shipment',
    );
  checkWarranty(clock.now(), s);
  const orderlines = await orders.orderlines(db, order.id);
  const categories = new Map((await repo.categories(db)).map((c) => [c.id, c]));
  const seen = new Set<number>();
  const lines = input.claimlines.map((l, i) => {
    const lf = `${f}.claimlines[${i}]`;
    const ol = orderlines.find((x) => x.index === l.orderlineIndex);
    if (!ol || ol.shippedQuantity <= 0)
      throw badRequest(
        `${lf}.orderlineIndex ${l.orderlineIndex} is not a line of order ${order.id} shipped in shipment ${s.id}`,
        'orderline_not_in_shipment',
      );
    if (seen.has(l.orderlineIndex))
      throw badRequest(`${lf}.orderlineIndex ${l.orderlineIndex} is listed twice; claim each line once`);
    seen.add(l.orderlineIndex);
    const cat = categories.get(l.claimcategoryReference);
    if (!cat)
      throw badRequest(
        `${lf}.claimcategoryReference ${l.claimcategoryReference} is not a claim category; see GET /claimcategories`,
      );
    if (cat.package_missing)
      throw badRequest(
        `${lf}.claimcategoryReference: '${cat.name}' cannot be used for item issues; file POST /claim-package-missing instead`,
        'package_missing_category_not_allowed',
      );
    const refs = l.evidenceReferences ?? [];
    if (refs.length > MAX_EVIDENCE)
      throw badRequest(
        `${lf}.evidenceReferences lists ${refs.length}; at most ${MAX_EVIDENCE} per claimed item`,
        'too_many_evidence_references',
      );
    if (cat.evidence_required && refs.length === 0)
      throw badRequest(
        `${lf}.evidenceReferences: category '${cat.name}' needs 1 to ${MAX_EVIDENCE} evidence references`,
        'evidence_required',
      );
    return {
      order_id: order.id,
      orderline_index: ol.index,
      product_id: ol.productId,
      image_id: ol.imageId,
      quantity: l.quantity,
      claimcategory_id: cat.id,
      evidence: refs,
      shipped: ol.shippedQuantity,
      field: lf,
    };
  });
  const id = newReference('Claim');
  await db.tx(async (tx) => {
    await repo.lockShipment(tx, s.id);
    const pending = await repo.pendingQuantities(tx, order.id);
    for (const l of lines) {
      const open = pending.get(l.orderline_index) ?? 0;
      if (l.quantity + open > l.shipped) {
        const already = open > 0 ? ` (${open} already under open claims)` : '';
        throw badRequest(
          `${l.field}.quantity ${l.quantity} is more than the ${l.shipped - open} of line ${l.orderline_index} that can still be claimed: ${l.shipped} shipped${already}`,
          'claimed_quantity_exceeds_shipped',
        );
      }
    }
    await evidence.claimable(
      tx,
      orgId,
      lines.map((l) => ({ field: `${l.field}.evidenceReferences`, refs: l.evidence })),
    );
    await insertClaim(
      deps,
      tx,
      {
        id,
        organization_id: orgId,
        kind: 'item_issues',
        shipment_id: s.id,
        order_id: order.id,
        status: 'pending',
        comment: input.comment ?? '',
        created_by: createdBy,
        created_at: clock.now(),
      },
      lines.map(({ shipped: _s, field: _f, ...l }) => l),
      [],
    );
  });
  return { reference: id };
}
