import { createHash } from 'node:crypto';
import { printFit, printOutline } from '../catalog/geometry.ts';
import type { OrderlineFacts } from '../orders/service.ts';
import type { ProductionDeps } from './deps.ts';
import type { ShipmentDocInput } from './documents.ts';
import { type DocumentKind, productionRepo as repo } from './repo.ts';

/** A problem retrying cannot fix (no print spec, the artwork gone): the file is marked failed at once. */
export class FileProblem extends Error {}

/**
 * pdfkit, fontkit and bwip-js are loaded by the first file a process makes, not at start: an API
 * node that never runs these jobs does not carry them.
 */
const builders = () =>
  Promise.all([import('./print-file.ts'), import('./label.ts'), import('./slip.ts')]).then(([p, l, s]) => ({
    buildPrintFile: p.buildPrintFile,
    buildShippingLabel: l.buildShippingLabel,
    buildPackingSlip: s.buildPackingSlip,
  }));

const isHexColor = (s: string | null | undefined): s is string => !!s && /^#[0-9a-fA-F]{6}$/.test(s);

const LOGO_FILE = /^\/brand-logos\/([0-9a-hjkmnp-tv-z]{26}\.png)$/;

/** The work of the production jobs: drawing the files and storing them, outside any transaction. */
export function productionMaker(deps: ProductionDeps, bleedMm: number) {
  const { db, clock, blobs } = deps;

  async function store(prefix: string, pdf: Buffer): Promise<{ blobKey: string; size: number }> {
    const sha = createHash('sha256').update(pdf).digest('hex').slice(0, 16);
    const blobKey = `${prefix}-${sha}.pdf`;
    await blobs.put(blobKey, pdf);
    return { blobKey, size: pdf.length };
  }

  async function printFileOf(
    orgId: string,
    orderId: string,
    line: Pick<OrderlineFacts, 'index' | 'productId' | 'imageId'>,
  ) {
    const product = (await deps.catalog.findProduct(orgId, line.productId)) as {
      name: string;
      print: { widthMm: number; heightMm: number; widthPx: number; heightPx: number; dpi: number } | null;
    } | null;
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
    const { buildPrintFile } = await builders();
    return buildPrintFile({
      artwork,
      // The artwork is fitted as every mockup of the product fits it: with the product's bleed.
      spec: { ...product.print, artworkBleedMm: drawn ? printFit(drawn.device, drawn.caseType).bleedMm : 0 },
      outline,
      bleedMm,
      title: `Print file ${orderId} line ${line.index}: ${product.name}`,
      at: clock.now(),
    });
  }

  /** A file made again replaces the old one: its blob goes once the row points at the new one. */
  async function dropReplaced(old: string | null, now: string): Promise<void> {
    if (old && old !== now) await blobs.delete(old);
  }

  async function logoOf(url: string | null): Promise<Buffer | null> {
    // Only logos uploaded to this service are read: a partner's own URL is not fetched by a job.
    if (!url?.startsWith(deps.config.publicBaseUrl)) return null;
    const m = LOGO_FILE.exec(url.slice(deps.config.publicBaseUrl.length));
    return m ? blobs.get(`brand-logos/${m[1]}`) : null;
  }

  async function documentInput(orgId: string, shipmentId: string): Promise<ShipmentDocInput> {
    const s = await deps.shipments.shipment(db, orgId, shipmentId);
    if (!s) throw new FileProblem(`shipment ${shipmentId} not found`);
    const orders = await deps.shipments.ordersOfShipment(db, s.id);
    const store = await deps.organization.storeRowIn(db, orgId, s.storeId);
    const brandId = orders.find((o) => o.brandId)?.brandId ?? store?.default_brand_id ?? null;
    const brand = brandId ? await deps.organization.findBrand(orgId, brandId) : null;
    const products = new Map<string, { name: string; legacyItemSKU: string } | null>();
    let weight = 0;
    const out: ShipmentDocInput['orders'] = [];
    for (const o of orders) {
      const lines: ShipmentDocInput['orders'][number]['lines'] = [];
      for (const l of await deps.orders.orderlines(db, o.id)) {
        if (l.shippedQuantity === 0) continue;
        if (!products.has(l.productId))
          products.set(l.productId, (await deps.catalog.findProduct(orgId, l.productId)) as never);
        const p = products.get(l.productId);
        lines.push({
          index: l.index,
          name: p?.name ?? l.productId,
          sku: p?.legacyItemSKU ?? '',
          quantity: l.shippedQuantity,
        });
        weight += l.unitWeightGrams * l.shippedQuantity;
      }
      out.push({ code: `${store?.code ?? ''}-${o.orderNumber}`, customIdentifier: o.customIdentifier, lines });
    }
    return {
      brand: {
        name: brand?.name ?? store?.name ?? 'Your order',
        primaryColor: isHexColor(brand?.primaryColor) ? brand.primaryColor : '#222222',
        secondaryColor: isHexColor(brand?.secondaryColor) ? brand.secondaryColor : '#f5f5f5',
        logo: await logoOf(brand?.logoUrl ?? null),
        customerService: brand?.customerService ?? {},
      },
      returnAddress: deps.config.returnAddress,
      destination: await deps.shipments.shipmentAddress(db, s),
      shipment: {
        reference: s.id,
        carrier: s.carrier,
        trackingNumber: s.trackingNumber,
        level: s.level,
        shippedAt: s.shippedAt,
        weightGrams: weight,
      },
      orders: out,
    };
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
          const stored = await store(`print-files/${orgId}/${orderId}/line-${line.index}`, pdf);
          await repo.printFileReady(db, orderId, line.index, { ...stored, details }, clock.now());
          await dropReplaced(before?.blob_key ?? null, stored.blobKey);
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

    async documents(orgId: string, shipmentId: string): Promise<void> {
      let input: ShipmentDocInput;
      try {
        input = await documentInput(orgId, shipmentId);
      } catch (err) {
        if (!(err instanceof FileProblem)) throw err;
        await repo.documentsFailed(db, shipmentId, err.message, clock.now());
        return;
      }
      const at = clock.now();
      const { buildShippingLabel, buildPackingSlip } = await builders();
      const built: Record<DocumentKind, () => Promise<Buffer>> = {
        shipping_label: () => buildShippingLabel(input, at),
        packing_slip: () => buildPackingSlip(input, at),
      };
      for (const [kind, build] of Object.entries(built) as Array<[DocumentKind, () => Promise<Buffer>]>) {
        const before = await repo.document(db, shipmentId, kind);
        const stored = await store(`shipment-documents/${orgId}/${shipmentId}/${kind}`, await build());
        await repo.documentReady(db, shipmentId, kind, stored, clock.now());
        await dropReplaced(before?.blob_key ?? null, stored.blobKey);
      }
    },
    documentsFailed: (shipmentId: string, error: string) => repo.documentsFailed(db, shipmentId, error, clock.now()),
  };
}
