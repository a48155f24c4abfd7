import type { Static } from 'typebox';
import type { Executor } from '../../platform/db/index.ts';
import { badRequest, conflict, mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference } from '../../platform/ids.ts';
import { claimCategories } from './categories.ts';
import type { ClaimsDeps } from './deps.ts';
import { claimDecisions } from './decide.ts';
import { CLOSED_WINDOW_DAYS, addDays } from './days.ts';
import { evidenceService } from './evidence.ts';
import { fileItemIssues } from './item-issues.ts';
import { filePackageMissing } from './package-missing.ts';
import { type ClaimRow, claimsRepo as repo } from './repo.ts';
import type { ItemIssuesBody, ListClaimsQuery, PackageMissingBody } from './schemas.ts';
import { claimDetail, listItems } from './view.ts';

export type ClaimsService = ReturnType<typeof claimsService>;

export { DEFAULT_CATEGORIES } from './categories.ts';

/**
 * Claims: filing (package-missing.ts, item-issues.ts), categories (categories.ts), evidence
 * (evidence.ts) and the operator's decisions (decide.ts), composed here with the reads.
 */
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
  const categories = claimCategories(deps);
  const filing = { db, clock, orders, shipments, shipping: deps.shipping, evidence, changed };

  return {
    evidence,

    ...categories,
    createPackageMissing: (orgId: string, createdBy: string, body: Static<typeof PackageMissingBody>) =>
      filePackageMissing(
        { ...filing, ensureDefaultCategories: categories.ensureDefaultCategories },
        orgId,
        createdBy,
        body,
      ),
    createItemIssues: (orgId: string, createdBy: string, body: Static<typeof ItemIssuesBody>) =>
      fileItemIssues(filing, orgId, createdBy, body),

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

    /** Claims still waiting for a decision (the partner overview). */
    pendingCount: (orgId: string) => repo.countPending(db, orgId),

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
}
