import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ImageFile, Open, PageQuery, RefParams, Strict, Type, errors } from '../../platform/http/schemas.ts';
import type { RenderFile } from './render-view.ts';
import { List, org, tags } from './routes-common.ts';
import { CreatePreview, CreateRender, Render, Rendertokens } from './schemas.ts';
import type { RenderingService } from './service.ts';

const Binary = ImageFile(
  "The file, in the perspective's format; `Cache-Control: private, max-age=31536000, immutable`",
);
const Pending = Open(
  { render: Open({ reference: Type.String(), status: Type.Literal('pending') }) },
  { description: 'Not complete yet; retry after `Retry-After` seconds' },
);

function sendFile(reply: FastifyReply, ref: string, file: RenderFile) {
  if (!file.ready)
    return reply
      .code(202)
      .header('retry-after', String(file.retryAfter))
      .send({ render: { reference: ref, status: 'pending' } });
  return reply
    .code(200)
    .header('content-type', file.mimeType)
    .header('content-length', String(file.size))
    .header('cache-control', 'private, max-age=31536000, immutable')
    .header('content-disposition', `inline; filename="${file.filename}"`)
    .send(file.stream);
}

/** Renders, live previews, their files and the week's rendertokens. */
export function renderRoutes(app: FastifyInstance, s: { rendering: RenderingService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/renders',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'createRender',
        tags,
        summary:
          'Render an image in a composition; deducts the token cost on every call (the same composition and image return the existing render)',
        body: CreateRender,
        response: { 200: Open({ render: Open({ reference: Type.String() }) }), ...errors(403, 404, 410) },
      },
    },
    async (req) => ({ render: await s.rendering.createRender(org(req), req.body.render) }),
  );
  r.post(
    '/renders/preview',
    {
      config: { access: 'write', bucket: 'previews' },
      schema: {
        operationId: 'previewRender',
        tags,
        summary: 'A live preview of an image in a composition: the image bytes at once, stored nowhere',
        description:
          "Extension for live previews in a product editor: answers `200` with the image (at most 600 px on the long edge, in the perspective's format) and its `Content-Type`. A preview is not a render: it has no reference, costs no rendertokens and is not kept. It draws from the `default` and `previews` rate-limit buckets; an organization with 4 previews in flight on a node gets `429 rate_limited` with `Retry-After: 1`, and a node whose queue several organizations fill answers `503 service_busy` with `Retry-After: 1`.",
        body: CreatePreview,
        response: {
          200: ImageFile("The preview image, in the perspective's format (`Cache-Control: no-store`)"),
          ...errors(404, 410, 503),
        },
      },
    },
    async (req, reply) => {
      const p = await s.rendering.preview(org(req), req.body.preview);
      return reply.type(p.mimeType).header('cache-control', 'no-store').send(p.bytes);
    },
  );
  r.get(
    '/renders',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listRenders',
        tags,
        summary: 'Renders of the organization, newest first (optionally by status)',
        querystring: Strict({ ...PageQuery, status: Type.Optional(Type.Enum(['pending', 'completed', 'failed'])) }),
        response: { 200: List('renders', Render), ...errors() },
      },
    },
    async (req) => s.rendering.listRenders(org(req), req.query),
  );
  r.get(
    '/renders/:renderReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getRender',
        tags,
        summary: 'A render and its status',
        params: RefParams('renderReference'),
        response: { 200: Open({ render: Render }), ...errors(404) },
      },
    },
    async (req) => ({ render: await s.rendering.render(org(req), req.params.renderReference) }),
  );

  for (const which of ['media', 'thumbnail'] as const) {
    r.get(
      `/renders/:renderReference/${which}`,
      {
        config: { access: 'read', bucket: 'downloads' },
        schema: {
          operationId: which === 'media' ? 'downloadRenderMedia' : 'downloadRenderThumbnail',
          tags,
          summary: `Download the render's ${which === 'media' ? 'image' : 'thumbnail'} (202 with Retry-After while pending; 409 render_failed)`,
          params: RefParams('renderReference'),
          response: { 200: Binary, 202: Pending, ...errors(404, 409) },
        },
      },
      async (req, reply) =>
        sendFile(
          reply,
          req.params.renderReference,
          await s.rendering.renderFile(org(req), req.params.renderReference, which),
        ),
    );
  }

  r.get(
    '/rendertokens',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getRendertokens',
        tags,
        summary: 'This week’s rendertokens; the limit resets Mondays 00:00 Europe/Amsterdam',
        response: { 200: Open({ rendertokens: Rendertokens }), ...errors() },
      },
    },
    async (req) => ({ rendertokens: await s.rendering.rendertokens(org(req)) }),
  );
}
