import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError, mustFind } from '../../platform/errors.ts';
import { ImageFile, Open, Page, PageQuery, RefParams, Strict, Type, errors } from '../../platform/http/schemas.ts';
import type { BlobStore } from '../../platform/storage.ts';
import type { Config } from '../../config.ts';
import type { CatalogService, MediaFile } from './service.ts';
import {
  ImportDocument,
  Item,
  LifecycleAdvance,
  LegacySkuQuery,
  MediaParams,
  Packaging,
  ProductChange,
  ProductDetail,
  ProductListItem,
  Productgroup,
  StockCorrection,
  StockIn,
  StockReceipt,
} from './schemas.ts';

const tags = ['Catalog'];
const MEDIA_FILE = ImageFile('The file');
const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;

/** RFC 9110: If-None-Match wins over If-Modified-Since; dates compare at whole seconds. */
function notModified(req: FastifyRequest, etag: string, modified: Date): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined)
    return inm
      .split(',')
      .map((t) => t.trim().replace(/^W\//, ''))
      .some((t) => t === '*' || t === etag);
  const ims = req.headers['if-modified-since'];
  const since = ims ? Date.parse(ims) : Number.NaN;
  return !Number.isNaN(since) && Math.floor(modified.getTime() / 1000) * 1000 <= since;
}

export async function sendMedia(req: FastifyRequest, reply: FastifyReply, blobs: BlobStore, m: MediaFile) {
  const etag = `"${m.sha256.slice(0, 32)}"`;
  // A render's file name carries its content hash, so it can be cached forever; other files revalidate.
  reply.header(
    'cache-control',
    m.kind === 'example_render' ? 'private, max-age=31536000, immutable' : 'private, no-cache',
  );
  reply.header('etag', etag).header('last-modified', m.modifiedAt.toUTCString());
  if (notModified(req, etag, m.modifiedAt)) return reply.status(304).send();
  const file = mustFind(await blobs.stream(m.blobKey), 'Media file');
  reply.header('content-type', m.contentType).header('content-length', String(file.size));
  return reply.send(file.stream);
}

/** What the catalog routes use. */
export type CatalogRouteDeps = {
  catalog: CatalogService;
  blobs: BlobStore;
  config: Pick<Config, 'uploadLimitBytes'>;
};

export function catalogRoutes(app: FastifyInstance, s: CatalogRouteDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/products',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listProducts',
        tags,
        summary: 'Products of the catalog (archived ones left out), newest first',
        querystring: Strict(PageQuery),
        response: { 200: Page('products', ProductListItem), ...errors() },
      },
    },
    async (req) => s.catalog.listProducts(org(req), req.query),
  );

  r.get(
    '/products/:productReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getProduct',
        tags,
        summary: 'One product with layers, print dimensions and media (archived products too)',
        params: RefParams('productReference'),
        response: { 200: Open({ product: ProductDetail }), ...errors(404) },
      },
    },
    async (req) => ({ product: await s.catalog.product(org(req), req.params.productReference) }),
  );

  r.get(
    '/products/:productReference/media/:filename',
    {
      config: { access: 'read', bucket: 'downloads' },
      schema: {
        operationId: 'getProductMedia',
        tags,
        summary: 'A product media file or layer image (counts to the downloads bucket)',
        description:
          'Example renders carry `Cache-Control: private, max-age=31536000, immutable`; example images and layer images carry `ETag` and `Last-Modified` and answer `304` to a matching `If-None-Match` or `If-Modified-Since`.',
        params: MediaParams,
        response: { 200: MEDIA_FILE, 304: Type.Null({ description: 'Not modified' }), ...errors(404) },
      },
    },
    async (req, reply) =>
      sendMedia(
        req,
        reply,
        s.blobs,
        await s.catalog.mediaFile(org(req), req.params.productReference, req.params.filename),
      ),
  );

  r.get(
    '/productgroups',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listProductgroups',
        tags,
        summary: 'Productgroups: public ones and the organization’s private ones',
        querystring: Strict(PageQuery),
        response: { 200: Page('productgroups', Productgroup), ...errors() },
      },
    },
    async (req) => s.catalog.listProductgroups(org(req), req.query),
  );

  r.get(
    '/packagings',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listPackagings',
        tags,
        summary: 'Packagings: public ones and the organization’s private ones',
        querystring: Strict(PageQuery),
        response: { 200: Page('packagings', Packaging), ...errors() },
      },
    },
    async (req) => s.catalog.listPackagings(org(req), req.query),
  );

  r.get(
    '/items',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listItems',
        tags,
        summary: 'Warehouse stock the organization stores at the service',
        querystring: Strict(PageQuery),
        response: { 200: Page('items', Item), ...errors() },
      },
    },
    async (req) => s.catalog.listItems(org(req), req.query),
  );

  r.get(
    '/utilities/lookup-product-reference-by-legacy-sku',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'lookupProductReferenceByLegacySku',
        tags: ['Utilities'],
        summary: 'The product reference of a previous-version SKU',
        querystring: LegacySkuQuery,
        response: { 200: Open({ productReference: Type.String() }), ...errors(404) },
      },
    },
    async (req) => s.catalog.lookupLegacySku(org(req), req.query.legacyItemSku),
  );
}

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/** Catalog import and product changes for operators and the CLI. */
export function catalogOperatorRoutes(app: FastifyInstance, s: CatalogRouteDeps): void {
  app.register(async (op) => {
    // Own scope: the YAML parser applies to these routes only, and a text body is no catalog.
    op.removeContentTypeParser('text/plain');
    // The YAML parser is loaded by the first YAML body: only operators' catalog imports send one.
    op.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, async (_req: unknown, body: string | Buffer) => {
      const { parse } = await import('yaml');
      try {
        return parse(body as string, { maxAliasCount: 100 });
      } catch (err) {
        throw new ApiError('invalid_request', `Body is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
      }
    });
    const r = op.withTypeProvider<TypeBoxTypeProvider>();
    const ProductParams = Strict({ productReference: Type.String({ maxLength: 200 }) });

    r.post(
      '/catalog/import',
      { config: { access: 'operator' }, bodyLimit: s.config.uploadLimitBytes, schema: { body: ImportDocument } },
      async (req) => s.catalog.importCatalog(req.body),
    );
    r.post('/catalog/lifecycle', { config: { access: 'operator' }, schema: { body: LifecycleAdvance } }, async (req) =>
      s.catalog.advanceLifecycle(req.body.catalogDate),
    );
    r.get(
      '/catalog/products',
      { config: { access: 'operator' }, schema: { querystring: Strict(PageQuery) } },
      async (req) => s.catalog.operatorProducts(req.query),
    );
    r.get(
      '/catalog/products/:productReference',
      { config: { access: 'operator' }, schema: { params: ProductParams } },
      async (req) => ({
        product: await s.catalog.operatorProduct(req.params.productReference),
      }),
    );
    r.patch(
      '/catalog/products/:productReference',
      {
        config: { access: 'operator' },
        bodyLimit: s.config.uploadLimitBytes,
        schema: { params: ProductParams, body: ProductChange },
      },
      async (req) => ({
        product: await s.catalog.changeProduct(req.params.productReference, req.body),
      }),
    );
    r.put(
      '/catalog/items/:itemKey/stock',
      {
        config: { access: 'operator' },
        schema: { params: Strict({ itemKey: Type.String({ maxLength: 200 }) }), body: StockIn },
      },
      async (req) => s.catalog.setItemStock(req.params.itemKey, req.body),
    );
    const ItemParams = Strict({ itemKey: Type.String({ maxLength: 200 }) });
    r.post(
      '/catalog/items/:itemKey/receipts',
      { config: { access: 'operator' }, schema: { params: ItemParams, body: StockReceipt } },
      async (req) => s.catalog.receiveStock(req.params.itemKey, req.body.quantity, req.body.reason ?? 'goods received'),
    );
    r.post(
      '/catalog/items/:itemKey/corrections',
      { config: { access: 'operator' }, schema: { params: ItemParams, body: StockCorrection } },
      async (req) => s.catalog.correctStock(req.params.itemKey, req.body),
    );
    r.get(
      '/catalog/items/:itemKey/movements',
      { config: { access: 'operator' }, schema: { params: ItemParams, querystring: Strict(PageQuery) } },
      async (req) => s.catalog.stockMovements(req.params.itemKey, req.query),
    );
  });
}
