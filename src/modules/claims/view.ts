import type { Executor } from '../../platform/db/index.ts';
import { EVIDENCE_RETENTION_DAYS, addDays } from './days.ts';
import { type CategoryRow, type ClaimlineRow, type ClaimRow, type EvidenceRow, claimsRepo as repo } from './repo.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const evidenceUrl = (base: string, e: Pick<EvidenceRow, 'token' | 'format'>) =>
  `${base}/evidence-files/${e.token}.${e.format === 'jpeg' ? 'jpg' : 'png'}`;

export const toCategory = (c: CategoryRow) => ({
  reference: c.id,
  name: c.name,
  evidenceRequired: c.evidence_required,
});

async function categoryMap(ex: Executor, lines: ClaimlineRow[]): Promise<Map<string, CategoryRow>> {
  const rows = await repo.categoriesByIds(ex, [...new Set(lines.map((l) => l.claimcategory_id))]);
  return new Map(rows.map((c) => [c.id, c]));
}

const categoryRef = (c: CategoryRow) => ({ reference: c.id, name: c.name });

/** Distinct categories of a claim's lines, in line order. */
function claimCategories(lines: ClaimlineRow[], cats: Map<string, CategoryRow>) {
  const seen = new Set<string>();
  const out = [];
  for (const l of lines) {
    if (seen.has(l.claimcategory_id)) continue;
    seen.add(l.claimcategory_id);
    out.push(categoryRef(cats.get(l.claimcategory_id)!));
  }
  return out;
}

export async function listItems(ex: Executor, claims: ClaimRow[]) {
  const lines = await repo.lines(
    ex,
    claims.map((c) => c.id),
  );
  const cats = await categoryMap(ex, lines);
  return claims.map((c) => ({
    reference: c.id,
    orderReference: c.order_id,
    status: c.status,
    claimcategories: claimCategories(
      lines.filter((l) => l.claim_id === c.id),
      cats,
    ),
    created: c.created_at.toISOString(),
    retracted: iso(c.retracted_at),
    decided: iso(c.decided_at),
  }));
}

/**
 * The claim as GET /claims/{ref} returns it. `replacementOrders` are the orders a decision created
 * (the orders module links them to the claim).
 */
export async function claimDetail(
  ex: Executor,
  c: ClaimRow,
  evidenceBase: string,
  replacementOrders: string[],
  now: Date,
) {
  const lines = await repo.lines(ex, [c.id]);
  const cats = await categoryMap(ex, lines);
  // Past the retention the files are gone, even while the purge job has yet to run.
  const purged =
    c.evidence_purged_at !== null ||
    (c.closed_at !== null && addDays(c.closed_at, EVIDENCE_RETENTION_DAYS).getTime() <= now.getTime());
  const evidence = purged ? [] : await repo.evidenceOfClaims(ex, [c.id]);
  const urls = (position: number | null) =>
    evidence.filter((e) => e.claim_position === position).map((e) => evidenceUrl(evidenceBase, e));
  return {
    reference: c.id,
    orderReference: c.order_id,
    shipmentReference: c.shipment_id,
    status: c.status,
    comment: c.comment,
    createdBy: c.created_by,
    created: c.created_at.toISOString(),
    retracted: iso(c.retracted_at),
    decision: c.decided_at
      ? {
          decided: c.decided_at.toISOString(),
          refundShippingCosts: c.refund_shipping_costs ?? false,
          comment: c.decision_comment ?? '',
        }
      : null,
    evidenceUrls: c.kind === 'package_missing' ? urls(null) : [],
    claimlines: lines.map((l) => ({
      productReference: l.product_id,
      orderlineIndex: l.orderline_index,
      orderReference: l.order_id,
      quantity: l.quantity,
      imageReference: l.image_id,
      claimcategory: categoryRef(cats.get(l.claimcategory_id)!),
      decision:
        l.replacement_quantity === null
          ? null
          : {
              replacementQuantity: l.replacement_quantity,
              refundQuantity: l.refund_quantity ?? 0,
              rejectionQuantity: l.rejection_quantity ?? 0,
              comment: l.decision_comment ?? '',
            },
      evidenceUrls: urls(l.position),
    })),
    replacementOrderReferences: replacementOrders,
  };
}
export type ClaimDetailView = Awaited<ReturnType<typeof claimDetail>>;
