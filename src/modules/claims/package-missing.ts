import type { Static } from 'typebox';
import { badRequest, conflict } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import { packageMissingOpens } from './days.ts';
import { type FilingDeps, bodyShipment, checkWarranty, insertClaim } from './filing.ts';
import { claimsRepo as repo } from './repo.ts';
import { MAX_EVIDENCE, type PackageMissingBody } from './schemas.ts';

interface PackageMissingDeps extends FilingDeps {
  /** The package-missing category is made on first use where the defaults were never set up. */
  ensureDefaultCategories: () => Promise<unknown>;
}

/**
 * A claim for a parcel that never arrived: every shipped line of every order in the shipment,
 * filed once the delivery window has passed (or the carrier reported the parcel stuck or lost).
 */
export async function filePackageMissing(
  deps: PackageMissingDeps,
  orgId: string,
  createdBy: string,
  body: Static<typeof PackageMissingBody>,
): Promise<{ reference: string }> {
  const { db, clock, orders, shipments, evidence } = deps;
  const f = 'body.claim';
  const refs = body.claim.evidenceReferences ?? [];
  if (refs.length > MAX_EVIDENCE)
    throw badRequest(
      `${f}.evidenceReferences lists ${refs.length}; a package-missing claim takes 0 to ${MAX_EVIDENCE}`,
      'too_many_evidence_references',
    );
  const s = await bodyShipment(deps, orgId, body.claim.shipmentReference);
  checkWarranty(clock.now(), s);
  if (s.deliveredAt)
    throw conflict(
      'shipment_delivered',
      `The carrier reported shipment ${s.id} delivered on ${s.deliveredAt.toISOString()}; a package-missing claim is for parcels that never arrived (file an item-issues claim for what arrived wrong)`,
    );
  const country = (await shipments.shipmentAddress(db, s)).countryCode ?? '';
  const opens = packageMissingOpens(s.shippedAt, deps.shipping.deliveryWindow(country, s.level).maxBusinessDays);
  // A parcel the carrier reported stuck, lost or returned need not wait for the delivery window.
  const stuck = s.attention === 'exception' || s.attention === 'lost' || s.attention === 'returned';
  if (!stuck && clock.now().getTime() < opens.at.getTime()) {
    throw conflict(
      'shipment_too_recent',
      `The delivery window of shipment ${s.id} (${s.level} to ${country || 'its destination'}) has not passed; a package-missing claim can be filed from ${opens.date}`,
    );
  }
  let category = await repo.packageMissingCategory(db);
  if (!category) {
    await deps.ensureDefaultCategories();
    category = (await repo.packageMissingCategory(db))!;
  }
  const id = newReference('Claim');
  await db.tx(async (tx) => {
    await repo.lockShipment(tx, s.id);
    // The replacement first: it is the more telling answer when a settled claim sits on the shipment.
    const shipped = await shipments.ordersOfShipment(tx, s.id);
    for (const o of shipped) {
      const replacement = await orders.replacementOf(tx, o.id);
      if (replacement)
        throw conflict('order_already_replaced', `Order ${o.id} already has replacement order ${replacement.id}`);
    }
    const existing = await repo.activeClaimsOfShipment(tx, s.id);
    if (existing.length > 0)
      throw conflict(
        'shipment_already_claimed',
        `Shipment ${s.id} already has claim ${existing[0].id}; a package-missing claim needs a shipment without claims`,
      );
    await evidence.claimable(tx, orgId, [{ field: `${f}.evidenceReferences`, refs }]);
    const lines = [];
    for (const o of shipped) {
      for (const l of await orders.orderlines(tx, o.id)) {
        if (l.shippedQuantity <= 0) continue;
        lines.push({
          order_id: o.id,
          orderline_index: l.index,
          product_id: l.productId,
          image_id: l.imageId,
          quantity: l.shippedQuantity,
          claimcategory_id: category.id,
          evidence: [],
        });
      }
    }
    if (lines.length === 0 || shipped.length === 0)
      throw conflict('shipment_empty', `Shipment ${s.id} carried no items`);
    await insertClaim(
      deps,
      tx,
      {
        id,
        organization_id: orgId,
        kind: 'package_missing',
        shipment_id: s.id,
        order_id: shipped[0].id,
        status: 'pending',
        comment: '',
        created_by: createdBy,
        created_at: clock.now(),
      },
      lines,
      refs,
    );
  });
  return { reference: id };
}
