import type { Static } from 'typebox';
import type { Executor } from '../../platform/db/index.ts';
import { badRequest, conflict, mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { ShipmentRecord } from '../shipments/service.ts';
import type { ClaimsDeps } from './deps.ts';
import { claimDecisions } from './decide.ts';
import { CLOSED_WINDOW_DAYS, addDays, packageMissingOpens, warrantyEnds } from './days.ts';
import { evidenceService } from './evidence.ts';
import { type ClaimlineRow, type ClaimRow, claimsRepo as repo } from './repo.ts';
import type { ItemIssuesBody, ListClaimsQuery, PackageMissingBody } from './schemas.ts';
import { MAX_EVIDENCE } from './schemas.ts';
import { claimDetail, listItems, toCategory } from './view.ts';

export type ClaimsService = ReturnType<typeof claimsService>;

/** The default categories: package-missing is the one item-issues claims may not use. */
export const DEFAULT_CATEGORIES = [
  { name: 'Package missing', evidenceRequired: false, packageMissing: true },
  { name: 'Damaged item', evidenceRequired: true, packageMissing: false },
  { name: 'Print defect', evidenceRequired: true, packageMissing: false },
  { name: 'Wrong item', evidenceRequired: false, packageMissing: false },
];

type NewClaim = Pick<
  ClaimRow,
  'id' | 'organization_id' | 'kind' | 'shipment_id' | 'order_id' | 'status' | 'comment' | 'created_by' | 'created_at'
>;
type NewLine = Pick<
  ClaimlineRow,
  'order_id' | 'orderline_index' | 'product_id' | 'image_id' | 'quantity' | 'claimcategory_id'
> & { evidence: string[] };

/** One claim at a time per shipment: a transaction-scoped lock, released at commit. */

export function claimsService(deps: ClaimsDeps) {
  const { db, clock, cursors, orders, shipments } = deps;
  const evidence = evidenceService(deps);
  const evidenceBase = deps.config.publicBaseUrl.replace(/\/+$/, '');

  async function detail(ex: Executor, c: ClaimRow) {
    return claimDetail(
      ex,
      c,
      evidenceBase,
      await orders.replacementOrdersOfClaim(ex, c.organization_id, c.id),
      clock.now(),
    );
  }
  const changed = async (tx: Executor, c: ClaimRow, type: 'claim.created' | 'claim.updated') =>
    deps.events.record(tx, {
      organizationId: c.organization_id,
      type,
      data: { claim: await detail(tx, (await repo.claim(tx, c.organization_id, c.id))!) },
    });

  /** `orgId` null: any organization (operator). */
  const findClaim = async (orgId: string | null, ref: string) =>
    isReference('Claim', ref) ? repo.claim(db, orgId, ref) : null;
  /** The shipment named in a claim body: another organization's is not found, like a path reference. */
  const bodyShipment = async (orgId: string, ref: string) =>
    mustFind(await shipments.shipmentRow(db, orgId, ref), `Shipment ${ref}`);

  /** The 100 days count from the delivery the carrier reported, else from the day the parcel left. */
  function checkWarranty(s: ShipmentRecord) {
    const from = s.delivered_at ?? s.shipped_at;
    const ends = warrantyEnds(from);
    if (clock.now().getTime() >= ends.getTime()) {
      throw conflict(
        'warranty_expired',
        `Shipment ${s.id} ${s.delivered_at ? 'was delivered' : 'left'} on ${from.toISOString()}; the 100-day warranty ended at ${ends.toISOString()}`,
      );
    }
  }

  /** A new claim with its lines, its evidence attached, and the claim.created event. */
  async function insertClaim(tx: Executor, c: NewClaim, lines: NewLine[], claimEvidence: string[]) {
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
      for (const ref of refs) await evidence.attach(tx, ref, c.id, i + 1);
    }
    for (const ref of claimEvidence) await evidence.attach(tx, ref, c.id, null);
    await changed(tx, c as ClaimRow, 'claim.created');
  }

  const service = {
    evidence,

    async categories() {
      return { claimcategories: (await repo.categories(db)).map(toCategory) };
    },
    /** Operators add categories; the list is open (partners fetch it). */
    async createCategory(input: { name: string; evidenceRequired: boolean }) {
      const name = input.name.trim();
      if (!name) throw badRequest('body.name must not be blank');
      if (await repo.categoryByName(db, name))
        throw conflict('claimcategory_name_in_use', `A claim category named "${name}" already exists`);
      const id = newReference('Claimcategory');
      await repo.insertCategoryIfAbsent(db, {
        id,
        name,
        evidence_required: input.evidenceRequired,
        package_missing: false,
        created_at: clock.now(),
      });
      const row = await repo.categoryByName(db, name);
      if (!row || row.id !== id)
        throw conflict('claimcategory_name_in_use', `A claim category named "${name}" already exists`);
      return toCategory(row);
    },
    /** Idempotent: the categories every deployment needs (the demo seed and migrations of data use it). */
    async ensureDefaultCategories() {
      for (const c of DEFAULT_CATEGORIES) {
        if (c.packageMissing ? await repo.packageMissingCategory(db) : await repo.categoryByName(db, c.name)) continue;
        await repo.insertCategoryIfAbsent(db, {
          id: newReference('Claimcategory'),
          name: c.name,
          evidence_required: c.evidenceRequired,
          package_missing: c.packageMissing,
          created_at: clock.now(),
        });
      }
      return service.categories();
    },

    async createPackageMissing(orgId: string, createdBy: string, body: Static<typeof PackageMissingBody>) {
      const f = 'body.claim';
      const refs = body.claim.evidenceReferences ?? [];
      if (refs.length > MAX_EVIDENCE)
        throw badRequest(
          `${f}.evidenceReferences lists ${refs.length}; a package-missing claim takes 0 to ${MAX_EVIDENCE}`,
          'too_many_evidence_references',
        );
      const s = await bodyShipment(orgId, body.claim.shipmentReference);
      checkWarranty(s);
      if (s.delivered_at)
        throw conflict(
          'shipment_delivered',
          `The carrier reported shipment ${s.id} delivered on ${s.delivered_at.toISOString()}; a package-missing claim is for parcels that never arrived (file an item-issues claim for what arrived wrong)`,
        );
      const country = (await shipments.shipmentAddress(db, s)).countryCode ?? '';
      const opens = packageMissingOpens(s.shipped_at, deps.shipping.deliveryWindow(country, s.level).maxBusinessDays);
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
        await service.ensureDefaultCategories();
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
            if (l.shipped_quantity <= 0) continue;
            lines.push({
              order_id: o.id,
              orderline_index: l.line_index,
              product_id: l.product_id,
              image_id: l.image_id,
              quantity: l.shipped_quantity,
              claimcategory_id: category.id,
              evidence: [],
            });
          }
        }
        if (lines.length === 0 || shipped.length === 0)
          throw conflict('shipment_empty', `Shipment ${s.id} carried no items`);
        await insertClaim(
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
    },

    async createItemIssues(orgId: string, createdBy: string, body: Static<typeof ItemIssuesBody>) {
      const input = body.claim;
      const f = 'body.claim';
      const s = await bodyShipment(orgId, input.shipmentReference);
      const order = await orders.orderRow(db, orgId, input.orderReference);
      if (!order || order.shipment_id !== s.id)
        throw badRequest(
          `${f}.orderReference ${input.orderReference} was not shipped in shipment ${s.id}`,
          'order_not_in_shipment',
        );
      checkWarranty(s);
      const orderlines = await orders.orderlines(db, order.id);
      const categories = new Map((await repo.categories(db)).map((c) => [c.id, c]));
      const seen = new Set<number>();
      const lines = input.claimlines.map((l, i) => {
        const lf = `${f}.claimlines[${i}]`;
        const ol = orderlines.find((x) => x.line_index === l.orderlineIndex);
        if (!ol || ol.shipped_quantity <= 0)
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
          orderline_index: ol.line_index,
          product_id: ol.product_id,
          image_id: ol.image_id,
          quantity: l.quantity,
          claimcategory_id: cat.id,
          evidence: refs,
          shipped: ol.shipped_quantity,
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
    },

    async list(orgId: string, q: Static<typeof ListClaimsQuery>) {
      const closedAfter =
        q.closedAfter !== undefined ? new Date(q.closedAfter) : addDays(clock.now(), -CLOSED_WINDOW_DAYS);
      if (Number.isNaN(closedAfter.getTime())) throw badRequest('query.closedAfter must be an ISO 8601 timestamp');
      return listPage(cursors, q as PageRequest, {
        plural: 'claims',
        load: (ks) => repo.claims(db, orgId, ks, closedAfter),
        async items(rows) {
          const items = await listItems(db, rows);
          return rows.map((r) => items.find((i) => i.reference === r.id)!);
        },
      });
    },

    async get(orgId: string, ref: string) {
      return detail(db, mustFind(await findClaim(orgId, ref), 'Claim', ref));
    },

    async retract(orgId: string, ref: string) {
      const c = mustFind(await findClaim(orgId, ref), 'Claim', ref);
      await db.tx(async (tx) => {
        const locked = (await repo.claim(tx, orgId, c.id, true))!;
        if (locked.status !== 'pending')
          throw conflict(
            'claim_not_pending',
            `Claim ${c.id} is ${locked.status}; only pending claims can be retracted`,
          );
        const now = clock.now();
        await repo.retract(tx, c.id, now);
        await evidence.schedulePurge(tx, locked, now);
        await changed(tx, locked, 'claim.updated');
      });
    },

    ...claimDecisions({ db, clock, orders, shipments, billing: deps.billing, evidence, findClaim, changed }),
  };
  return service;
}
