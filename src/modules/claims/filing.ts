import type { Executor } from '../../platform/db/index.ts';
import { conflict, mustFind } from '../../platform/errors.ts';
import type { ShipmentFacts } from '../shipments/service.ts';
import type { ClaimsDeps } from './deps.ts';
import { warrantyEnds } from './days.ts';
import type { EvidenceService } from './evidence.ts';
import { type ClaimlineRow, type ClaimRow, claimsRepo as repo } from './repo.ts';

/** What filing a claim (package-missing.ts, item-issues.ts) is given by the service. */
export interface FilingDeps extends Pick<ClaimsDeps, 'db' | 'clock' | 'orders' | 'shipments' | 'shipping'> {
  evidence: EvidenceService;
  changed: (tx: Executor, c: ClaimRow, type: 'claim.created') => Promise<unknown>;
}

export type NewClaim = Pick<
  ClaimRow,
  'id' | 'organization_id' | 'kind' | 'shipment_id' | 'order_id' | 'status' | 'comment' | 'created_by' | 'created_at'
>;
export type NewLine = Pick<
  ClaimlineRow,
  'order_id' | 'orderline_index' | 'product_id' | 'image_id' | 'quantity' | 'claimcategory_id'
> & { evidence: string[] };

/** The shipment named in a claim body: another organization's is not found, like a path reference. */
export const bodyShipment = async (deps: Pick<FilingDeps, 'db' | 'shipments'>, orgId: string, ref: string) =>
  mustFind(await deps.shipments.shipment(deps.db, orgId, ref), `Shipment ${ref}`);

/** The 100 days count from the delivery the carrier reported, else from the day the parcel left. */
export function checkWarranty(now: Date, s: ShipmentFacts): void {
  const from = s.deliveredAt ?? s.shippedAt;
  const ends = warrantyEnds(from);
  if (now.getTime() >= ends.getTime()) {
    throw conflict(
      'warranty_expired',
      `Shipment ${s.id} ${s.deliveredAt ? 'was delivered' : 'left'} on ${from.toISOString()}; the 100-day warranty ended at ${ends.toISOString()}`,
    );
  }
}

/** A new claim with its lines, its evidence attached, and the claim.created event. */
export async function insertClaim(
  deps: Pick<FilingDeps, 'evidence' | 'changed'>,
  tx: Executor,
  c: NewClaim,
  lines: NewLine[],
  claimEvidence: string[],
): Promise<void> {
  await repo.insertClaim(tx, c);
  for (const [i, l] of lines.entries()) {
    const { evidence: refs, ...line } = l;
    await repo.insertLine(tx, {
      ...line,
      claim_id: c.id,
      position: i + 1,
      replacement_quantity: null,
      refund_quantity: null,
      rejection_quantity: null,
      decision_comment: null,
    });
    for (const ref of refs) await deps.evidence.attach(tx, ref, c.id, i + 1);
  }
  for (const ref of claimEvidence) await deps.evidence.attach(tx, ref, c.id, null);
  await deps.changed(tx, c as ClaimRow, 'claim.created');
}
