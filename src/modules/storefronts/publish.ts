import { ApiError, badRequest, mustFind } from '../../platform/errors.ts';
import type { Executor } from '../../platform/db/index.ts';
import type { OrganizationService } from '../organization/service.ts';
import { newReference } from '../../platform/ids.ts';
import type { StorefrontsDeps } from './deps.ts';
import { MAX_ATTEMPTS, type Operations } from './operations.ts';
import { type ProductRow, storefrontsRepo as repo } from './repo.ts';

/** Product stages that are sold; an ended or archived product's variant is shown out of stock. */
export const SELLING = new Set(['launched', 'sunsetted', 'prelaunched']);
export interface PublishInput {
  imageReference: string;
  productReferences: string[];
  priceCents: number;
  title: string;
}

/**
 * Publishing a design to a Shopify store, the partner's side: the publication is checked and saved,
 * and its call to Shopify queued (./publish-calls.ts makes it). Publishing again updates the same
 * product.
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

/**
 * Each publication's latest call to Shopify, by publication reference: waiting, retrying (with
 * the attempt it is at and the error that made it retry), failed (a person retries it) or done.
 */
export async function publicationCalls(db: Executor, storeId: string): Promise<Map<string, PublicationCall>> {
  const rows = await repo.latestPublicationOperations(db, storeId);
  return new Map(
    rows.map((o) => [
      String(o.payload.productId),
      {
        operationId: o.id,
        kind: o.kind as 'publish' | 'unpublish',
        state:
          o.status === 'queued' ? (o.attempts > 0 ? 'retrying' : 'waiting') : o.status === 'failed' ? 'failed' : 'done',
        attempts: o.attempts,
        maxAttempts: MAX_ATTEMPTS,
        lastError: o.last_error,
        updatedAt: o.updated_at,
      },
    ]),
  );
}

export interface PublicationCall {
  operationId: string;
  kind: 'publish' | 'unpublish';
  state: 'waiting' | 'retrying' | 'failed' | 'done';
  attempts: number;
  maxAttempts: number;
  /** The last error while retrying or failed; the outcome's note when done. */
  lastError: string | null;
  updatedAt: Date;
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
