import { mustFind } from '../../platform/errors.ts';
import type { StorefrontsDeps } from './deps.ts';
import type { Operations } from './operations.ts';
import { SELLING } from './publish.ts';
import { type ProductRow, storefrontsRepo as repo } from './repo.ts';
import { type FetchLike, type ShopifyGraphql, ShopifyRefused, assertNoUserErrors } from './shopify/client.ts';
import * as D from './shopify/documents.ts';
import { variantSku } from './shopify/mapping.ts';

/** Long edge of a mockup uploaded as product media (Shopify shows up to 2048 px). */
const MEDIA_EDGE = 2048;
/** Mockups per model: a product with many models still stays under Shopify's 250 media. */
const MOCKUPS_PER_PRODUCT = 2;
/** What a print-on-demand variant offers: made to order, so never counted down to zero by sales. */
const MADE_TO_ORDER_QUANTITY = 1000;

const money = (cents: number) => (cents / 100).toFixed(2);

/** Shopify's staged uploads: each file PUT to the target Shopify gives, its resource URL returned. */
async function upload(
  fetchApi: FetchLike,
  gql: ShopifyGraphql,
  files: Array<{ name: string; bytes: Buffer; mimeType: string }>,
) {
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
    const res = await fetchApi(t.url, { method: 'PUT', headers, body: new Uint8Array(files[i].bytes) });
    if (!res.ok) throw new ShopifyRefused(`the staged upload of ${files[i].name} failed (${res.status})`);
  }
  return targets.map((t) => t.resourceUrl);
}

/**
 * A publication's calls to Shopify: one Shopify product, one variant per print product (its SKU
 * names the product and the artwork, its inventory sits at the service's fulfillment location), the
 * composed mockups as product media; unpublishing archives the product.
 */
export function publicationHandlers(deps: StorefrontsDeps, ops: Operations) {
  const { db, clock } = deps;

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
      const urls = files.length ? await upload(deps.fetch, gql, files) : [];
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
}
