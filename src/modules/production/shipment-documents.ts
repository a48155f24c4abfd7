import { mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { ShipmentFacts } from '../shipments/service.ts';
import type { ProductionDeps } from './deps.ts';
import type { FileQueue } from './file-queue.ts';
import { readyPdf } from './ready-pdf.ts';
import { productionRepo as repo } from './repo.ts';
import { documentOfSlug, documentView } from './views.ts';

/** A shipment's label and packing slip for the operators: listed, downloaded, made anew. */
export function shipmentDocuments(deps: Pick<ProductionDeps, 'db' | 'blobs' | 'shipments'>, queue: FileQueue) {
  const { db, blobs } = deps;

  async function shipmentOf(ref: string): Promise<ShipmentFacts> {
    const orgId = isReference('Shipment', ref) ? await repo.shipmentOrganization(db, ref) : null;
    return mustFind(orgId ? await deps.shipments.shipment(db, orgId, ref) : null, 'Shipment', ref);
  }

  async function documents(shipmentRef: string) {
    const s = await shipmentOf(shipmentRef);
    return {
      shipmentReference: s.id,
      organizationReference: s.organizationId,
      documents: (await repo.documents(db, [s.id])).map(documentView),
    };
  }

  return {
    shipmentDocuments: documents,
    async documentPdf(shipmentRef: string, slug: string) {
      const s = await shipmentOf(shipmentRef);
      const kind = documentOfSlug(slug);
      const what = kind === 'packing_slip' ? 'Packing slip' : 'Shipping label';
      const bytes = await readyPdf(blobs, kind ? await repo.document(db, s.id, kind) : null, what);
      return { bytes, filename: `${s.id}-${slug}.pdf` };
    },
    async remakeDocuments(shipmentRef: string) {
      const s = await shipmentOf(shipmentRef);
      await db.tx((tx) => queue.documents(tx, s));
      return documents(s.id);
    },
  };
}
