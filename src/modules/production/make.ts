import { createHash } from 'node:crypto';
import { printFit, printOutline } from '../catalog/geometry.ts';
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
    line: { line_index: number; product_id: string; image_id: string | null },
  ) {
    const product = (await deps.catalog.findProduct(orgId, line.product_id)) as {
      name: string;
      print: { widthMm: number; heightMm: number; widthPx: number; heightPx: number; dpi: number } | null;
    } | null;
    if (!product) throw new FileProblem(`product ${line.product_id} is no longer in the catalog`);
    if (!product.print)
      throw new FileProblem(`${product.name} has no print spec yet (its device geometry is preliminary)`);
    if (!line.image_id) throw new FileProblem('the line has no artwork');
    const image = await deps.images.imageForOrganization(orgId, line.image_id);
    const artwork = image ? await deps.images.readImage(image.blobKey) : null;
    if (!artwork) throw new FileProblem(`artwork ${line.image_id} is missing from the blob store`);
    const shape = (await deps.catalog.productShapes([line.product_id])).get(line.product_id);
    const drawn = shape?.device && shape.caseType ? { device: shape.device, caseType: shape.caseType } : null;
    const outline = drawn ? printOutline(drawn.device, drawn.caseType) : null;
    const { buildPrintFile } = await builders();
    return buildPrintFile({
      artwork,
      // The artwork is fitted as every mockup of the product fits it: with the product's bleed.
      spec: { ...product.print, artworkBleedMm: drawn ? printFit(drawn.device, drawn.caseType).bleedMm : 0 },
      outline,
      bleedMm,
      title: `Print file ${orderId} line ${line.line_index}: ${product.name}`,
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
    const brandId = orders.find((o) => o.brand_id)?.brand_id ?? store?.default_brand_id ?? null;
    const brand = brandId ? await deps.organization.findBrand(orgId, brandId) : null;
    const products = new Map<string, { name: string; legacyItemSKU: string } | null>();
    let weight = 0;
    const out: ShipmentDocInput['orders'] = [];
    for (const o of orders) {
      const lines: ShipmentDocInput['orders'][number]['lines'] = [];
      for (const l of await deps.orders.orderlines(db, o.id)) {
        if (l.shipped_quantity === 0) continue;
        if (!products.has(l.product_id))
          products.set(l.product_id, (await deps.catalog.findProduct(orgId, l.product_id)) as never);
        const p = products.get(l.product_id);
        lines.push({
          index: l.line_index,
          name: p?.name ?? l.product_id,
          sku: p?.legacyItemSKU ?? '',
          quantity: l.shipped_quantity,
        });
        weight += l.unit_weight_grams * l.shipped_quantity;
      }
      out.push({ code: `${store?.code ?? ''}-${o.order_number}`, customIdentifier: o.custom_identifier, lines });
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
        if (!pending.has(line.line_index)) continue;
        try {
          const { pdf, details } = await printFileOf(orgId, orderId, line);
          const before = await repo.printFile(db, orderId, line.line_index);
          const stored = await store(`print-files/${orgId}/${orderId}/line-${line.line_index}`, pdf);
          await repo.printFileReady(db, orderId, line.line_index, { ...stored, details }, clock.now());
          await dropReplaced(before?.blob_key ?? null, stored.blobKey);
        } catch (err) {
          if (!(err instanceof FileProblem)) throw err;
          await repo.printFileFailed(db, orderId, line.line_index, err.message, clock.now());
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
