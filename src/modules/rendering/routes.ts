import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { badRequest } from '../../platform/errors.ts';
import {
  ImageFile,
  Nullable,
  Open,
  PageQuery,
  RefParams,
  type Static,
  Strict,
  Type,
  errors,
} from '../../platform/http/schemas.ts';
import type { TemplateImport } from './import.ts';
import type { RenderingService } from './service.ts';
import type { RenderFile } from './renders.ts';
import {
  Composition,
  CompositionLookup,
  CreateRender,
  CreatePreview,
  type ImportComposition,
  ImportRendering,
  LookupQuery,
  Perspective,
  PerspectivesQuery,
  Render,
  Rendertokens,
  Scene,
  SceneListItem,
  ScenesQuery,
} from './schemas.ts';

const tags = ['Rendering'];
const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;
const List = <T extends Parameters<typeof Type.Array>[0]>(name: string, item: T) =>
  Open({ [name]: Type.Array(item), nextCursor: Nullable(Type.String()) });

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

export function renderingRoutes(app: FastifyInstance, s: { rendering: RenderingService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/scenes',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listScenes',
        tags,
        summary: 'Scenes, optionally those compatible with a productgroup',
        querystring: ScenesQuery,
        response: { 200: List('scenes', SceneListItem), ...errors(404) },
      },
    },
    async (req) => s.rendering.listScenes(org(req), req.query),
  );
  r.get(
    '/scenes/:sceneReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getScene',
        tags,
        summary: 'One scene',
        params: RefParams('sceneReference'),
        response: { 200: Open({ scene: Scene }), ...errors(404) },
      },
    },
    async (req) => ({ scene: await s.rendering.scene(org(req), req.params.sceneReference) }),
  );

  r.get(
    '/perspectives',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listPerspectives',
        tags,
        summary: 'Perspectives usable for a scene and/or product',
        querystring: PerspectivesQuery,
        response: { 200: List('perspectives', Perspective), ...errors(404) },
      },
    },
    async (req) => s.rendering.listPerspectives(org(req), req.query),
  );
  r.get(
    '/perspectives/:perspectiveReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getPerspective',
        tags,
        summary: 'One perspective',
        params: RefParams('perspectiveReference'),
        response: { 200: Open({ perspective: Perspective }), ...errors(404) },
      },
    },
    async (req) => ({ perspective: await s.rendering.perspective(org(req), req.params.perspectiveReference) }),
  );

  r.get(
    '/lookup-composition',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'lookupComposition',
        tags,
        summary:
          'The composition of a scene, product and perspective (404: no such combination; 410: no longer available)',
        querystring: LookupQuery,
        response: { 200: Open({ composition: CompositionLookup }), ...errors(404, 410) },
      },
    },
    async (req) => ({ composition: await s.rendering.lookupComposition(org(req), req.query) }),
  );
  r.get(
    '/compositions/:compositionReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getComposition',
        tags,
        summary: 'One composition with its token cost',
        params: RefParams('compositionReference'),
        response: { 200: Open({ composition: Composition }), ...errors(404, 410) },
      },
    },
    async (req) => ({ composition: await s.rendering.composition(org(req), req.params.compositionReference) }),
  );

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

type TemplateBody = Static<typeof ImportComposition>['template'];

/** The import's template as one of its three forms, or a 400 that says what is missing. */
function templateInput(t: TemplateBody, at: string): TemplateImport {
  const b64 = (v: string) => Buffer.from(v, 'base64');
  const given = (keys: Array<keyof TemplateBody>) => keys.filter((k) => t[k] !== undefined);
  if (t.generate) {
    const extra = given(['background', 'mask', 'overlay', 'printArea', 'uv', 'layers', 'backMm', 'material']);
    if (extra.length) throw badRequest(`${at}: generate takes no other parts (got ${extra.join(', ')})`);
    return { generate: t.generate };
  }
  if (t.uv !== undefined) {
    const missing = (['background', 'layers', 'material', 'backMm'] as const).filter((k) => t[k] === undefined);
    if (missing.length) throw badRequest(`${at}: a UV-mapped template also needs ${missing.join(', ')}`);
    return {
      background: b64(t.background!),
      uv: b64(t.uv),
      layers: b64(t.layers!),
      material: t.material!,
      backMm: t.backMm!,
    };
  }
  const missing = (['background', 'mask', 'printArea'] as const).filter((k) => t[k] === undefined);
  if (missing.length)
    throw badRequest(
      `${at} needs {background, uv, layers, material, backMm}, {generate} or {background, mask, printArea} (missing ${missing.join(', ')})`,
    );
  return {
    background: b64(t.background!),
    mask: b64(t.mask!),
    overlay: t.overlay ? b64(t.overlay) : null,
    printArea: t.printArea!,
  };
}

/** Operator import of scenes, perspectives and compositions (with base64 template assets). */
export function renderingOperatorRoutes(app: FastifyInstance, s: { rendering: RenderingService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/rendering/import',
    { config: { access: 'operator' }, bodyLimit: 100 * 1024 * 1024, schema: { body: ImportRendering } },
    async (req) => {
      const body = req.body;
      return s.rendering.importRendering({
        ...body,
        compositions: body.compositions?.map((c, i) => ({
          ...c,
          template: templateInput(c.template, `compositions[${i}].template`),
        })),
      });
    },
  );
  r.put(
    '/rendering/compositions/:compositionReference/availability',
    {
      config: { access: 'operator' },
      schema: { params: RefParams('compositionReference'), body: Strict({ available: Type.Boolean() }) },
    },
    async (req) => s.rendering.setCompositionAvailable(req.params.compositionReference, req.body.available),
  );
}
