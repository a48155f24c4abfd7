import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { badRequest } from '../../platform/errors.ts';
import { RefParams, type Static, Strict, Type } from '../../platform/http/schemas.ts';
import type { TemplateImport } from './import.ts';
import { renderRoutes } from './routes-renders.ts';
import { sceneRoutes } from './routes-scenes.ts';
import { type ImportComposition, ImportRendering } from './schemas.ts';
import type { RenderingService } from './service.ts';

/** The partner's rendering routes: scenes and compositions (routes-scenes.ts), renders (routes-renders.ts). */
export function renderingRoutes(app: FastifyInstance, s: { rendering: RenderingService }): void {
  sceneRoutes(app, s);
  renderRoutes(app, s);
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
