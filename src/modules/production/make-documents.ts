import type { ProductionDeps } from './deps.ts';
import { type DocumentInputDeps, documentInput } from './document-input.ts';
import type { ShipmentDocInput } from './documents.ts';
import { FileProblem, dropReplaced, storePdf } from './made-files.ts';
import { type DocumentKind, productionRepo as repo } from './repo.ts';

/** The shipment documents job: the shipping label and the packing slip, drawn and stored. */
export function documentMaker(deps: DocumentInputDeps & Pick<ProductionDeps, 'clock'>) {
  const { db, clock, blobs } = deps;
  return {
    async documents(orgId: string, shipmentId: string): Promise<void> {
      let input: ShipmentDocInput;
      try {
        input = await documentInput(deps, orgId, shipmentId);
      } catch (err) {
        if (!(err instanceof FileProblem)) throw err;
        await repo.documentsFailed(db, shipmentId, err.message, clock.now());
        return;
      }
      const at = clock.now();
      // fontkit and bwip-js are loaded by the first document a process makes, not at start.
      const [{ buildShippingLabel }, { buildPackingSlip }] = await Promise.all([
        import('./label.ts'),
        import('./slip.ts'),
      ]);
      const built: Record<DocumentKind, () => Promise<Buffer>> = {
        shipping_label: () => buildShippingLabel(input, at),
        packing_slip: () => buildPackingSlip(input, at),
      };
      for (const [kind, build] of Object.entries(built) as Array<[DocumentKind, () => Promise<Buffer>]>) {
        const before = await repo.document(db, shipmentId, kind);
        const stored = await storePdf(blobs, `shipment-documents/${orgId}/${shipmentId}/${kind}`, await build());
        await repo.documentReady(db, shipmentId, kind, stored, clock.now());
        await dropReplaced(blobs, before?.blob_key ?? null, stored.blobKey);
      }
    },
    documentsFailed: (shipmentId: string, error: string) => repo.documentsFailed(db, shipmentId, error, clock.now()),
  };
}
