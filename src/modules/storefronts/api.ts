import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Nullable, Open, Reference, Strict, Timestamp, Type, errors } from '../../platform/http/schemas.ts';
import type { StorefrontsService } from './service.ts';

const tags = ['Shopify (extension)'];

const Publication = Open(
  {
    reference: Reference('ShopifyProduct'),
    storeReference: Reference('Store'),
    title: Type.String(),
    imageReference: Reference('Image'),
    productReferences: Type.Array(Reference('Product')),
    priceCents: Type.Integer({
      description: 'Retail price of every variant on the shop, in cents of the shop currency',
    }),
    status: Type.Enum(['publishing', 'published', 'unpublishing', 'archived', 'failed'], {
      description:
        '`publishing` until the product is on the shop; a lasting failure shows on the store page of the dashboard',
    }),
    shopifyProductId: Nullable(
      Type.String({ description: 'The Shopify product (`gid://shopify/Product/…`) once published' }),
    ),
    mediaCount: Type.Integer({ description: 'Mockups uploaded as product media' }),
    updated: Timestamp,
  },
  { description: 'A design published to a Shopify store (extension)' },
);

const PublishBody = Strict({
  publication: Strict({
    imageReference: Type.String({ maxLength: 200, description: 'The artwork printed on every variant' }),
    productReferences: Type.Array(Type.String({ maxLength: 200 }), {
      minItems: 1,
      maxItems: 100,
      description: 'Print products, one Shopify variant each (for example one case type on twelve models)',
    }),
    priceCents: Type.Integer({
      minimum: 1,
      maximum: 100_000_00,
      description: 'Retail price of every variant, in cents',
    }),
    title: Type.String({ minLength: 1, maxLength: 255 }),
  }),
});

const StoreParams = Strict({ storeReference: Type.String({ maxLength: 200 }) });
const PublicationParams = Strict({
  storeReference: Type.String({ maxLength: 200 }),
  publicationReference: Type.String({ maxLength: 200 }),
});

/**
 * Publishing designs to a connected Shopify store (extension: the contract has no publishing).
 * The work runs in the background; the answer says where it stands.
 */
export function storefrontApiRoutes(app: FastifyInstance, s: { storefronts: StorefrontsService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;
  r.post(
    '/stores/:storeReference/shopify/publications',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'publishToShopify',
        tags,
        summary: 'Publish a design as one Shopify product with a variant per print product (extension)',
        description:
          "Creates (or, for an artwork already published to the store, updates) one Shopify product: a variant per print product whose SKU names the product and the artwork, stocked at the service's fulfillment location, and the composed mockups as product media (3D scenes where the model has them, the straight-on shot otherwise). Orders of these variants flow back as orders of the store.",
        params: StoreParams,
        body: PublishBody,
        response: { 200: Open({ publication: Publication }), ...errors(404, 409) },
      },
    },
    async (req) => ({
      publication: await s.storefronts.publish(org(req), req.params.storeReference, req.body.publication),
    }),
  );
  r.get(
    '/stores/:storeReference/shopify/publications',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listShopifyPublications',
        tags,
        summary: 'Designs published to a Shopify store, newest first (extension)',
        params: StoreParams,
        response: { 200: Open({ publications: Type.Array(Publication) }), ...errors(404, 409) },
      },
    },
    async (req) => ({ publications: await s.storefronts.publishedProducts(org(req), req.params.storeReference) }),
  );
  r.delete(
    '/stores/:storeReference/shopify/publications/:publicationReference',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'unpublishFromShopify',
        tags,
        summary: 'Unpublish: the Shopify product is archived (extension)',
        params: PublicationParams,
        response: { 200: Open({ publication: Publication }), ...errors(404, 409) },
      },
    },
    async (req) => ({
      publication: await s.storefronts.unpublish(org(req), req.params.storeReference, req.params.publicationReference),
    }),
  );
}
