import type { ProductionDeps } from './deps.ts';
import { holdsRepo } from './holds-repo.ts';
import type { productionRelease } from './release.ts';
import { productionRepo as repo } from './repo.ts';
import { documentView, holdView, iso, printFileView } from './views.ts';

const WEEK = 7 * 86400_000;

/**
 * The fulfilment queue: orders waiting for production, in production and produced (ready to
 * ship), oldest change first, each with its print files; and the last week's shipments with
 * their labels and slips.
 */
export function fulfilmentQueue(
  deps: Pick<ProductionDeps, 'db' | 'clock'>,
  release: Pick<ReturnType<typeof productionRelease>, 'describe'>,
) {
  const { db, clock } = deps;
  return async function queue(limit = 200) {
    const open = await repo.queue(db, ['pending', 'preorder', 'in_production'], limit);
    const ids = open.map((o) => o.id);
    const [files, produced, holds] = await Promise.all([
      repo.printFiles(db, ids),
      repo.produced(db, ids),
      holdsRepo.holds(db, ids),
    ]);
    const item = (o: (typeof open)[number]) => ({
      reference: o.id,
      organizationReference: o.organization_id,
      organizationName: o.organization_name,
      legacyOrderCode: `${o.store_code}-${o.order_number}`,
      status: o.status,
      shippingKind: o.shipping_kind,
      shippingLevel: o.shipping_level,
      since: o.status_modified_at.toISOString(),
      produced: iso(produced.get(o.id) ?? null),
      printFiles: files.filter((f) => f.order_id === o.id).map(printFileView),
      hold: holdView(holds.find((h) => h.order_id === o.id)),
    });
    const shipments = await repo.recentShipments(db, new Date(clock.now().getTime() - WEEK), limit);
    const docs = await repo.documents(
      db,
      shipments.map((s) => s.id),
    );
    return {
      release: release.describe(),
      waiting: open.filter((o) => o.status !== 'in_production').map(item),
      inProduction: open.filter((o) => o.status === 'in_production' && !produced.has(o.id)).map(item),
      readyToShip: open.filter((o) => o.status === 'in_production' && produced.has(o.id)).map(item),
      shipped: shipments.map((s) => ({
        reference: s.id,
        organizationReference: s.organization_id,
        organizationName: s.organization_name,
        level: s.level,
        carrier: s.carrier,
        trackingNumber: s.tracking_number,
        created: s.created_at.toISOString(),
        documents: docs.filter((d) => d.shipment_id === s.id).map(documentView),
      })),
    };
  };
}
