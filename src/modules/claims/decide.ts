import type { Static } from 'typebox';
import type { Executor } from '../../platform/db/index.ts';
import { badRequest, conflict, mustFind } from '../../platform/errors.ts';
import type { ClaimsDeps } from './deps.ts';
import type { EvidenceService } from './evidence.ts';
import { type ClaimlineRow, type ClaimRow, claimsRepo as repo } from './repo.ts';
import type { DecideBody } from './schemas.ts';

interface DecideDeps extends Pick<ClaimsDeps, 'db' | 'clock' | 'orders' | 'shipments' | 'billing'> {
  evidence: EvidenceService;
  findClaim: (orgId: string | null, ref: string) => Promise<ClaimRow | null>;
  changed: (tx: Executor, c: ClaimRow, type: 'claim.updated') => Promise<unknown>;
}

type Decision = Static<typeof DecideBody>['decision'];

/** Matches each decided line to exactly one claimline and checks that its quantities add up. */
function matchLines(lines: ClaimlineRow[], decision: Decision) {
  const f = 'body.decision.claimlines';
  const out = new Map<ClaimlineRow, Decision['claimlines'][number]>();
  for (const [i, d] of decision.claimlines.entries()) {
    const candidates = lines.filter(
      (l) =>
        l.orderline_index === d.orderlineIndex && (d.orderReference === undefined || l.order_id === d.orderReference),
    );
    if (candidates.length === 0)
      throw badRequest(`${f}[${i}].orderlineIndex ${d.orderlineIndex} is not a line of this claim`);
    if (candidates.length > 1)
      throw badRequest(
        `${f}[${i}].orderlineIndex ${d.orderlineIndex} is claimed for several orders of the shipment; add orderReference`,
      );
    const line = candidates[0];
    if (out.has(line)) throw badRequest(`${f}[${i}] decides line ${d.orderlineIndex} a second time`);
    const sum = d.replacementQuantity + d.refundQuantity + d.rejectionQuantity;
    if (sum !== line.quantity) {
      throw badRequest(
        `${f}[${i}]: replacement, refund and rejection quantities add up to ${sum}, but ${line.quantity} were claimed for line ${d.orderlineIndex}`,
        'decision_quantity_mismatch',
      );
    }
    out.set(line, d);
  }
  const missing = lines.filter((l) => !out.has(l));
  if (missing.length > 0)
    throw badRequest(
      `${f} must decide every claimed line; missing orderlineIndex ${missing.map((l) => l.orderline_index).join(', ')}`,
    );
  return out;
}

/** Support's decision (operator API in production, the test helper in test). */
export function claimDecisions(deps: DecideDeps) {
  const { db, clock, orders, shipments } = deps;

  /**
   * The refunded items at the price the order showed, per order, and (when the decision says so)
   * the order's shipping costs. The ledger books each once: a claim's refund per order, an order's
   * shipping once whichever claim refunds it.
   */
  async function creditRefunds(
    tx: Executor,
    claim: ClaimRow,
    matched: Map<ClaimlineRow, Decision['claimlines'][number]>,
    refundShipping: boolean,
  ): Promise<void> {
    const orderIds = [...new Set([...matched.keys()].map((l) => l.order_id))];
    const refunds: Parameters<typeof deps.billing.creditClaimRefunds>[2] = [];
    for (const orderId of orderIds) {
      const order = (await orders.order(tx, claim.organization_id, orderId))!;
      const lines = await orders.orderlines(tx, orderId);
      let items = 0;
      for (const [line, d] of matched) {
        if (line.order_id !== orderId || d.refundQuantity === 0) continue;
        items += d.refundQuantity * lines.find((l) => l.index === line.orderline_index)!.unitPriceCents;
      }
      const base = { organizationId: claim.organization_id, storeId: order.storeId, orderId };
      refunds.push({
        ...base,
        source: `${claim.id}:${orderId}`,
        amountCents: items,
        description: `Refund, claim ${claim.id}`,
      });
      if (refundShipping)
        refunds.push({
          ...base,
          source: `shipping:${orderId}`,
          amountCents: order.shippingCents,
          description: `Refund of shipping costs, claim ${claim.id}`,
        });
    }
    // One credit note per invoice the claim corrects, whatever it refunds.
    await deps.billing.creditClaimRefunds(tx, claim.id, refunds);
  }

  return {
    /**
     * Resolved when at least one item is awarded a replacement or refund, else rejected. Replaced
     * quantities become a replacement order per original order, to where the shipment went.
     */
    async decide(orgId: string | null, ref: string, decision: Decision): Promise<void> {
      const c = mustFind(await deps.findClaim(orgId, ref), 'Claim', ref);
      await db.tx(async (tx) => {
        const claim = (await repo.claim(tx, c.organization_id, c.id, true))!;
        if (claim.status !== 'pending')
          throw conflict(
            'claim_not_pending',
            `Claim ${claim.id} is ${claim.status}; only pending claims can be decided`,
          );
        const lines = await repo.lines(tx, [claim.id]);
        const matched = matchLines(lines, decision);
        const awarded = [...matched.values()].some((d) => d.replacementQuantity > 0 || d.refundQuantity > 0);
        const status = awarded ? 'resolved' : 'rejected';
        if (decision.status !== status) {
          throw badRequest(
            `body.decision.status is ${decision.status}, but ${awarded ? 'a replacement or refund is awarded, which resolves the claim' : 'nothing is replaced or refunded, which rejects the claim'}`,
          );
        }
        const now = clock.now();
        for (const [line, d] of matched) {
          await repo.decideLine(tx, claim.id, line.position, {
            replacement: d.replacementQuantity,
            refund: d.refundQuantity,
            rejection: d.rejectionQuantity,
            comment: d.comment,
          });
        }
        await creditRefunds(tx, claim, matched, decision.refundShippingCosts);
        await repo.decide(tx, claim.id, {
          status,
          at: now,
          refundShippingCosts: decision.refundShippingCosts,
          comment: decision.comment,
        });

        const replaced = new Map<string, Array<{ orderlineIndex: number; quantity: number }>>();
        for (const [line, d] of matched) {
          if (d.replacementQuantity === 0) continue;
          replaced.set(line.order_id, [
            ...(replaced.get(line.order_id) ?? []),
            { orderlineIndex: line.orderline_index, quantity: d.replacementQuantity },
          ]);
        }
        if (replaced.size > 0) {
          const shipment = (await shipments.shipment(tx, claim.organization_id, claim.shipment_id))!;
          const address = await shipments.shipmentAddress(tx, shipment);
          for (const [orderId, replacementLines] of replaced) {
            await orders.createReplacementOrder(tx, {
              organizationId: claim.organization_id,
              claimReference: claim.id,
              orderReference: orderId,
              address,
              shippingLevel: shipment.level,
              lines: replacementLines,
            });
          }
        }
        await deps.evidence.schedulePurge(tx, claim, now);
        await deps.changed(tx, claim, 'claim.updated');
      });
    },
  };
}
