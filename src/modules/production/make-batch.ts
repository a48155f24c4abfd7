import { printFit, printOutline, printSpecFor } from '../catalog/geometry.ts';
import type { BedCase } from './batch-print-file.ts';
import type { BatchSheetInput } from './batch-sheets.ts';
import type { ProductionDeps } from './deps.ts';
import { type FloorConfig, binOf } from './floor-config.ts';
import { type BatchDocumentKind, floorRepo as repo } from './floor-repo.ts';
import { FileProblem, dropReplaced, storePdf } from './made-files.ts';

/**
 * The batch files job: reads the batch's slots, their products and artwork, has a worker thread
 * draw the print file, the pick list and the batch sheet, and stores them.
 */
export function batchFileMaker(
  deps: Pick<ProductionDeps, 'db' | 'clock' | 'blobs' | 'catalog' | 'images'>,
  floor: FloorConfig,
) {
  const { db, clock, blobs } = deps;

  async function inputs(batchId: string) {
    const b = await repo.batch(db, batchId);
    if (!b) throw new FileProblem(`batch ${batchId} not found`);
    const printer = floor.printers.find((p) => p.id === b.printer);
    const jig = floor.jigs.find((j) => j.id === b.jig);
    if (!printer || !jig) throw new FileProblem(`the floor file no longer has printer ${b.printer} with jig ${b.jig}`);
    const rows = await repo.batchContents(db, b.id);
    const shapes = await deps.catalog.productShapes([...new Set(rows.map((r) => r.product_id))]);
    const artworks = new Map<string, Buffer>();
    const cases: BedCase[] = [];
    const slots: BatchSheetInput['slots'] = [];
    let caseType = '';
    for (const r of rows) {
      const slot = jig.slots.find((s) => s.id === r.slot);
      const shape = shapes.get(r.product_id);
      if (!slot) throw new FileProblem(`jig ${jig.id} no longer has slot ${r.slot}`);
      if (!shape?.device || !shape.caseType) throw new FileProblem(`${r.product_name} has no device geometry`);
      if (!r.image_id) throw new FileProblem(`${r.order_id} line ${r.line_index} has no artwork`);
      if (!artworks.has(r.image_id)) {
        const image = await deps.images.imageForOrganization(r.organization_id, r.image_id);
        const bytes = image ? await deps.images.readImage(image.blobKey) : null;
        if (!bytes) throw new FileProblem(`artwork ${r.image_id} is missing from the blob store`);
        artworks.set(r.image_id, bytes);
      }
      caseType = shape.caseType.label;
      cases.push({
        slot,
        artwork: artworks.get(r.image_id)!,
        spec: {
          ...printSpecFor(shape.device, shape.caseType),
          artworkBleedMm: printFit(shape.device, shape.caseType).bleedMm,
        },
        outline: printOutline(shape.device, shape.caseType),
      });
      slots.push({
        slot,
        sku: r.sku ?? '(no stock item)',
        bin: r.sku ? binOf(floor, r.sku) : null,
        product: r.product_name,
        unit: `line ${r.line_index}, case ${r.unit_no} of ${r.quantity}`,
        orderCode: r.order_code,
        remake: r.attempt > 1 ? (r.remake_reason ?? 'remake') : null,
        unitId: r.unit_id,
      });
    }
    const sheet: BatchSheetInput = {
      reference: b.id,
      printer,
      jigName: jig.name,
      caseType,
      created: b.created_at,
      jigSlots: jig.slots,
      slots,
    };
    return { b, printer, cases, sheet };
  }

  return {
    async make(batchId: string): Promise<void> {
      let input: Awaited<ReturnType<typeof inputs>>;
      try {
        input = await inputs(batchId);
      } catch (err) {
        if (!(err instanceof FileProblem)) throw err;
        await repo.documentsFailed(db, batchId, err.message, clock.now());
        return;
      }
      const { drawBatchFiles } = await import('./batch-files.ts');
      const at = clock.now();
      const files = await drawBatchFiles({
        printer: input.printer,
        cases: input.cases,
        bleedMm: Number(input.b.bleed_mm),
        sheet: input.sheet,
        at,
      });
      const made: Array<[BatchDocumentKind, Buffer, object]> = [
        ['print_file', files.printFile, { images: files.images, bleedMm: Number(input.b.bleed_mm) }],
        ['pick_list', files.pickList, {}],
        ['batch_sheet', files.batchSheet, {}],
      ];
      const before = new Map((await repo.documents(db, [batchId])).map((d) => [d.kind, d.blob_key]));
      for (const [kind, pdf, details] of made) {
        const stored = await storePdf(blobs, `batches/${batchId}/${kind}`, pdf);
        await repo.documentReady(db, batchId, kind, { ...stored, details }, clock.now());
        await dropReplaced(blobs, before.get(kind) ?? null, stored.blobKey);
      }
    },
    failed: (batchId: string, error: string) => repo.documentsFailed(db, batchId, error, clock.now()),
  };
}
