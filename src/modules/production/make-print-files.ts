import { printFit, printOutline } from '../catalog/geometry.ts';
import type { OrderlineFacts } from '../orders/service.ts';
import type { ProductionDeps } from './deps.ts';
import { FileProblem, dropReplaced, storePdf } from './made-files.ts';
import { productionRepo as repo } from './repo.ts';

/** The print files job: each pending line's artwork fitted to the case and drawn to a PDF. */
export function printFileMaker(
  deps: Pick<ProductionDeps, 'db' | 'clock' | 'blobs' | 'catalog' | 'images' | 'orders'>,
  bleedMm: number,
) {
  const { db, clock, blobs } = deps;

  async function printFileOf(
    orgId: string,
    orderId: string,
    line: Pick<OrderlineFacts, 'index' | 'productId' | 'imageId'>,
  ) {
    const product = await deps.catalog.findProductData(orgId, line.productId);
    if (!product) throw new FileProblem(`product ${line.productId} is no longer in the catalog`);
    if (!product.print)
      throw new FileProblem(`${product.name} has no print spec yet (its device geometry is preliminary)`);
    if (!line.imageId) throw new FileProblem('the line has no artwork');
    const image = await deps.images.imageForOrganization(orgId, line.imageId);
    const artwork = image ? await deps.images.readImage(image.blobKey) : null;
    if (!artwork) throw new FileProblem(`artwork ${line.imageId} is missing from the blob store`);
    const shape = (await deps.catalog.productShapes([line.productId])).get(line.productId);
    const drawn = shape?.device && shape.caseType ? { device: shape.device, caseType: shape.caseType } : null;
    const outline = drawn ? printOutline(drawn.device, drawn.caseType) : null;
    // Loaded by the first print file a process makes (make.ts says why).
    const { buildPrintFile } = await import('./print-file.ts');
    return buildPrintFile({
      artwork,
      // The product's print area (its geometry's for a case, see catalog/print-spec.ts); the artwork
      // is fitted as every mockup fits it, with the product's bleed.
      spec: { ...product.print, artworkBleedMm: drawn ? printFit(drawn.device, drawn.caseType).bleedMm : 0 },
      outline,
      bleedMm,
      title: `Print file ${orderId} line ${line.index}: ${product.name}`,
      at: clock.now(),
    });
  }

  return {
    /** Makes every pending print file of the order; a line's lasting problem fails that line only. */
    async printFiles(orgId: string, orderId: string): Promise<void> {
      const [order] = await deps.orders.ordersByIds(db, orgId, [orderId]);
      if (!order) return;
      const pending = new Set(
        (await repo.printFiles(db, [orderId])).filter((f) => f.status === 'pending').map((f) => f.line_index),
      );
      for (const line of await deps.orders.orderlines(db, orderId)) {
        if (!pending.has(line.index)) continue;
        try {
          const { pdf, details } = await printFileOf(orgId, orderId, line);
          const before = await repo.printFile(db, orderId, line.index);
          const stored = await storePdf(blobs, `print-files/${orgId}/${orderId}/line-${line.index}`, pdf);
          await repo.printFileReady(db, orderId, line.index, { ...stored, details }, clock.now());
          await dropReplaced(blobs, before?.blob_key ?? null, stored.blobKey);
        } catch (err) {
          if (!(err instanceof FileProblem)) throw err;
          await repo.printFileFailed(db, orderId, line.index, err.message, clock.now());
        }
      }
    },
    async printFilesFailed(orderId: string, error: string): Promise<void> {
      for (const f of await repo.printFiles(db, [orderId]))
        if (f.status === 'pending') await repo.printFileFailed(db, orderId, f.line_index, error, clock.now());
    },
  };
}
