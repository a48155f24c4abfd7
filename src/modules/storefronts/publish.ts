import { ApiError, badRequest, mustFind } from '../../platform/errors.ts';
import type { OrganizationService } from '../organization/service.ts';
import { newReference } from '../../platform/ids.ts';
import type { StorefrontsDeps } from './deps.ts';
import type { Operations } from './operations.ts';
import { type ProductRow, storefrontsRepo as repo } from './repo.ts';
import { type ShopifyGraphql, ShopifyRefused, assertNoUserErrors } from './shopify/client.ts';
import * as D from './shopify/documents.ts';
import { variantSku } from './shopify/mapping.ts';

/** Product stages that are sold; an ended or archived product's variant is shown out of stock. */
const SELLING = new Set(['launched', 'sunsetted', 'prelaunched']);
/** Long edge of a mockup uploaded as product media (Shopify shows up to 2048 px). */
const MEDIA_EDGE = 2048;
/** Mockups per model: a product with many models still stays under Shopify's 250 media. */
const MOCKUPS_PER_PRODUCT = 2;
/** What a print-on-demand variant offers: made to order, so never counted down to zero by sales. */
const MADE_TO_ORDER_QUANTITY = 1000;

export interface PublishInput {
  imageReference: string;
  productReferences: string[];
  priceCents: number;
  title: string;
}

const money = (cents: number) => (cents / 100).toFixed(2);

/**
 * Publishing a design to a Shopify store: one Shopify product, one variant per print product (its
 * SKU names the product and the artwork, its inventory sits at the service's fulfillment location),
 * the composed mockups as product media. Publishing again updates the same product.
 */
export function publishing(deps: StorefrontsDeps, ops: Operations, stores: Pick<OrganizationService, 'findStore'>) {
  const { db, clock } = deps;

  /** A missing or foreign store is a 404 like any other reference; a store of the caller's not on Shopify, a 409. */
  async function connected(orgId: string, storeRef: string) {
    mustFind(await stores.findStore(orgId, storeRef), 'Store', storeRef);
    const conn = await repo.connectionOfStore(db, storeRef);
    if (!conn || conn.organization_id !== orgId)
      throw new ApiError('store_not_shopify', `Store ${storeRef} is not a connected Shopify store`);
    if (conn.status === 'disconnected')
      throw new ApiError(
        'store_not_shopify',
        `Store ${storeRef} was disconnected from ${conn.shop_domain}; connect it again`,
      );
    return conn;
  }

  async function upload(gql: ShopifyGraphql, files: Array<{ name: string; bytes: Buffer; mimeType: string }>) {
    const r: {
      stagedUploadsCreate: {
        stagedTargets: Array<{ url: string; resourceUrl: string; parameters: Array<{ name: string; value: string }> }>;
        userErrors: Array<{ field: string[] | null; message: string }>;
      };
    } = await gql.request(D.STAGED_UPLOADS_CREATE, {
      input: files.map((f) => ({
        resource: 'IMAGE',
        filename: f.name,
        mimeType: f.mimeType,
        httpMethod: 'PUT',
        fileSize: String(f.bytes.length),
      })),
    });
    assertNoUserErrors(r.stagedUploadsCreate, 'stagedUploadsCreate');
    const targets = r.stagedUploadsCreate.stagedTargets;
    for (const [i, t] of targets.entries()) {
      const headers: Record<string, string> = { 'content-type': files[i].mimeType };
      for (const p of t.parameters) headers[p.name === 'content_type' ? 'content-type' : p.name] = p.value;
      const res = await deps.fetch(t.url, { method: 'PUT', headers, body: new Uint8Array(files[i].bytes) });
      if (!res.ok) throw new ShopifyRefused(`the staged upload of ${files[i].name} failed (${res.status})`);
    }
    return targets.map((t) => t.resourceUrl);
  }

  const markFailed = async (op: { store_id: string; payload: any }) => {
    const row = await repo.productOf(db, op.store_id, op.payload.productId as string);
    if (row) await repo.setProductState(db, row.id, { status: 'failed', at: clock.now() });
  };

  ops.handle(
    'publish',
    async ({ op, conn, gql }) => {
      const row = mustFind(await repo.productOf(db, op.store_id, op.payload.productId as string), 'Published product');
      const catalog = await deps.catalog.orderableProducts(row.organization_id, row.product_ids);
      const media: ProductRow['media'] = [];
      const files: Array<{ name: string; bytes: Buffer; mimeType: string; productId: string }> = [];
      for (const productId of row.product_ids) {
        for (const m of (await deps.rendering.productMockups(row.organization_id, productId)).slice(
          0,
          MOCKUPS_PER_PRODUCT,
        )) {
          const shot = await deps.rendering.preview(
            row.organization_id,
            { compositionReference: m.compositionReference, imageReference: row.image_id },
            MEDIA_EDGE,
          );
          const ext = shot.mimeType.split('/')[1];
          const blobKey = `storefronts/${row.id}/${productId}-${m.compositionReference}.${ext}`;
          await deps.blobs.put(blobKey, shot.bytes);
          media.push({ productId, blobKey, kind: m.kind });
          files.push({
            name: `${productId}-${files.length + 1}.${ext}`,
            bytes: shot.bytes,
            mimeType: shot.mimeType,
            productId,
          });
        }
      }
      const urls = files.length ? await upload(gql, files) : [];
      const name = (ref: string) => catalog.get(ref)?.name ?? ref;
      const input = {
        title: row.title,
        vendor: 'Print on demand',
        status: 'ACTIVE',
        productOptions: [{ name: 'Model', position: 1, values: row.product_ids.map((p) => ({ name: name(p) })) }],
        files: urls.map((u, i) => ({
          originalSource: u,
          contentType: 'IMAGE',
          alt: `${row.title} — ${name(files[i].productId)}`,
        })),
        variants: row.product_ids.map((p, i) => {
          const first = files.findIndex((f) => f.productId === p);
          const selling = SELLING.has(catalog.get(p)?.status ?? 'ended');
          return {
            optionValues: [{ optionName: 'Model', name: name(p) }],
            price: money(row.price_cents),
            sku: variantSku(p, row.image_id),
            position: i + 1,
            inventoryPolicy: 'DENY',
            inventoryItem: { sku: variantSku(p, row.image_id), tracked: true, requiresShipping: true },
            inventoryQuantities: conn.location_id
              ? [{ locationId: conn.location_id, name: 'available', quantity: selling ? MADE_TO_ORDER_QUANTITY : 0 }]
              : [],
            ...(first >= 0 ? { file: { originalSource: urls[first], contentType: 'IMAGE' } } : {}),
          };
        }),
      };
      const r: {
        productSet: { product: { id: string } | null; userErrors: Array<{ field: string[] | null; message: string }> };
      } = await gql.request(D.PRODUCT_SET, {
        input,
        identifier: row.upstream_product_id ? { id: row.upstream_product_id } : null,
      });
      assertNoUserErrors(r.productSet, 'productSet');
      await repo.setProductState(db, row.id, {
        status: 'published',
        upstreamId: r.productSet.product!.id,
        media,
        at: clock.now(),
      });
      return `published as ${r.productSet.product!.id} with ${urls.length} image(s)`;
    },
    markFailed,
  );

  ops.handle(
    'unpublish',
    async ({ op, gql }) => {
      const row = mustFind(await repo.productOf(db, op.store_id, op.payload.productId as string), 'Published product');
      if (row.upstream_product_id) {
        const r: { productUpdate: { userErrors: Array<{ field: string[] | null; message: string }> } } =
          await gql.request(D.PRODUCT_STATUS_UPDATE, {
            product: { id: row.upstream_product_id, status: 'ARCHIVED' },
          });
        assertNoUserErrors(r.productUpdate, 'productUpdate');
      }
      await repo.setProductState(db, row.id, { status: 'archived', at: clock.now() });
      return 'archived';
    },
    markFailed,
  );

  return {
    async publish(orgId: string, storeRef: string, input: PublishInput) {
      const conn = await connected(orgId, storeRef);
      const refs = [...new Set(input.productReferences)];
      const found = await deps.catalog.orderableProducts(orgId, refs);
      for (const [i, ref] of refs.entries()) {
        const p = found.get(ref);
        if (!p) throw badRequest(`body.publication.productReferences[${i}] ${ref} is not a product of the catalog`);
        if (!p.printable) throw badRequest(`body.publication.productReferences[${i}] ${p.name} is not a print product`);
        if (!SELLING.has(p.status))
          throw new ApiError(
            'product_not_orderable',
            `body.publication.productReferences[${i}] ${p.name} is ${p.status} and cannot be sold`,
          );
      }
      const images = await deps.images.imagesForOrganization(orgId, [input.imageReference]);
      if (!images.has(input.imageReference))
        throw badRequest('body.publication.imageReference is not an image of this organization');
      const existing = await repo.productByDesign(db, conn.store_id, input.imageReference);
      const id = existing?.id ?? newReference('ShopifyProduct');
      const now = clock.now();
      await db.tx(async (tx) => {
        await repo.saveProduct(tx, {
          id,
          store_id: conn.store_id,
          organization_id: orgId,
          image_id: input.imageReference,
          title: input.title,
          price_cents: input.priceCents,
          product_ids: refs,
          status: 'publishing',
          created_at: existing?.created_at ?? now,
          updated_at: now,
        });
        await ops.enqueue(tx, conn.store_id, orgId, {
          kind: 'publish',
          subject: input.title,
          payload: { productId: id },
        });
      });
      deps.worker.nudge();
      return view((await repo.productOf(db, conn.store_id, id))!);
    },
    async unpublish(orgId: string, storeRef: string, id: string) {
      const conn = await connected(orgId, storeRef);
      const row = mustFind(await repo.productOf(db, conn.store_id, id), 'Published product', id);
      await db.tx(async (tx) => {
        await repo.setProductState(tx, row.id, { status: 'unpublishing', at: clock.now() });
        await ops.enqueue(tx, conn.store_id, orgId, {
          kind: 'unpublish',
          subject: row.title,
          payload: { productId: row.id },
        });
      });
      deps.worker.nudge();
      return view((await repo.productOf(db, conn.store_id, id))!);
    },
    /**
     * A model that stops selling (ended, archived) or starts again: every publication carrying it is
     * published again, so its variant shows out of stock (decision 0321) or back in stock.
     */
    async productChanged(c: { productReference: string; status?: { from: string; to: string } }) {
      if (!c.status || SELLING.has(c.status.from) === SELLING.has(c.status.to)) return;
      const rows = await repo.publicationsWithProduct(db, c.productReference);
      for (const row of rows)
        await db.tx(async (tx) => {
          await repo.setProductState(tx, row.id, { status: 'publishing', at: clock.now() });
          await ops.enqueue(tx, row.store_id, row.organization_id, {
            kind: 'publish',
            subject: row.title,
            payload: { productId: row.id },
          });
        });
      if (rows.length) deps.worker.nudge();
    },
    async list(orgId: string, storeRef: string) {
      const conn = await connected(orgId, storeRef);
      return (await repo.productsOf(db, conn.store_id)).map(view);
    },
  };
}

export function view(p: ProductRow) {
  return {
    reference: p.id,
    storeReference: p.store_id,
    title: p.title,
    imageReference: p.image_id,
    productReferences: p.product_ids,
    priceCents: p.price_cents,
    status: p.status,
    shopifyProductId: p.upstream_product_id,
    mediaCount: p.media.length,
    updated: p.updated_at.toISOString(),
  };
}
