import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Open, RefParams, errors } from '../../platform/http/schemas.ts';
import { List, org, tags } from './routes-common.ts';
import {
  Composition,
  CompositionLookup,
  LookupQuery,
  Perspective,
  PerspectivesQuery,
  Scene,
  SceneListItem,
  ScenesQuery,
} from './schemas.ts';
import type { RenderingService } from './service.ts';

/** Scenes, perspectives and compositions: what a partner can render, and what it costs. */
export function sceneRoutes(app: FastifyInstance, s: { rendering: RenderingService }): void {
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
}
