import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Open, Page, PageQuery, RefParams, Strict, errors } from '../../../platform/http/schemas.ts';
import type { RenderingService } from '../service.ts';
import { CreatePhotoScene, DeletedPhotoScene, PhotoScene } from './schemas.ts';

const tags = ['Rendering'];
const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;

/** A partner's own photos as private scenes (extension of the contract). */
export function photoSceneRoutes(app: FastifyInstance, s: { rendering: RenderingService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const photos = s.rendering.photoScenes;

  r.post(
    '/photo-scenes',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'createPhotoScene',
        tags,
        summary: 'Make a private scene from your own photo and the corners where the case sits (extension)',
        description:
          "Extension: upload the photo with `POST /images` first, then name the four corners of the case's back on it. The scene is private to your organization and works like every scene (`GET /scenes/{ref}`, `GET /perspectives`, `GET /lookup-composition`, `POST /renders`, `POST /renders/preview`) with every product that has a device and a case type: the case is placed by the perspective the corners give, lit by the photo's own light, with a soft contact shadow. `400 photo_scene_corners_invalid` when the corners cross, turn inwards or run anticlockwise; `400 photo_scene_corners_outside` when one lies outside the photo; `400 photo_scene_photo_too_small` under 1000 px; `404` for an image of another organization.",
        body: CreatePhotoScene,
        response: { 200: Open({ photoScene: PhotoScene }), ...errors(400, 404) },
      },
    },
    async (req) => ({ photoScene: await photos.create(org(req), req.body.photoScene) }),
  );
  r.get(
    '/photo-scenes',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listPhotoScenes',
        tags,
        summary: 'Your photo scenes, newest first (extension)',
        querystring: Strict(PageQuery),
        response: { 200: Page('photoScenes', PhotoScene), ...errors() },
      },
    },
    async (req) => photos.list(org(req), req.query),
  );
  r.get(
    '/photo-scenes/:sceneReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getPhotoScene',
        tags,
        summary: 'One of your photo scenes with its photo and corners (extension)',
        params: RefParams('sceneReference'),
        response: { 200: Open({ photoScene: PhotoScene }), ...errors(404) },
      },
    },
    async (req) => ({ photoScene: await photos.get(org(req), req.params.sceneReference) }),
  );
  r.delete(
    '/photo-scenes/:sceneReference',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'deletePhotoScene',
        tags,
        summary: 'Delete a photo scene: it and its compositions are gone; renders made in it stay (extension)',
        params: RefParams('sceneReference'),
        response: { 200: Open({ photoScene: DeletedPhotoScene }), ...errors(404) },
      },
    },
    async (req) => ({ photoScene: await photos.remove(org(req), req.params.sceneReference) }),
  );
}
