import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Open, Page, PageQuery, RefParams, Strict, errors } from '../../platform/http/schemas.ts';
import { postRawUpload, uploadTempDir } from '../../platform/http/upload.ts';
import type { Config } from '../../config.ts';
import type { ImagesService } from './service.ts';
import { Image } from './schemas.ts';

const tags = ['Images'];

/**
 * Partner images. Registered in a scope of their own: the octet-stream parser of the upload must
 * not leak to the JSON endpoints of other modules.
 */
export function imagesRoutes(
  app: FastifyInstance,
  s: { images: ImagesService; config: Pick<Config, 'uploadLimitBytes' | 'dataDir'> },
): void {
  app.register(async (scope) => {
    const r = scope.withTypeProvider<TypeBoxTypeProvider>();

    postRawUpload(scope, {
      url: '/images',
      limitBytes: s.config.uploadLimitBytes,
      tempDir: uploadTempDir(s.config.dataDir),
      noun: 'Images',
      access: 'write',
      bucket: 'uploads',
      schema: {
        operationId: 'uploadImage',
        tags,
        summary: 'Upload a JPEG or PNG image',
        description: `The format is judged from the bytes, not from a header. Identical bytes return the same reference. Images larger than 7000x7000 pixels are downsized to fit, keeping the aspect ratio; \`originalWidth\`/\`originalHeight\` then give the uploaded size. Counts to the \`uploads\` and \`default\` buckets.`,
        response: { 200: Open({ image: Image }), ...errors(403, 413, 415, 503) },
      },
      handler: async (req, body) => ({
        image: await s.images.upload(req.principal.organizationId, body),
      }),
    });

    r.get(
      '/images',
      {
        config: { access: 'read' },
        schema: {
          operationId: 'listImages',
          tags,
          summary: 'Uploaded images, newest first',
          querystring: Strict(PageQuery),
          response: { 200: Page('images', Image), ...errors() },
        },
      },
      async (req) => s.images.list(req.principal.organizationId, req.query),
    );

    r.get(
      '/images/:imageReference',
      {
        config: { access: 'read' },
        schema: {
          operationId: 'getImage',
          tags,
          summary: 'One uploaded image',
          params: RefParams('imageReference'),
          response: { 200: Open({ image: Image }), ...errors(404) },
        },
      },
      async (req) => ({ image: await s.images.image(req.principal.organizationId, req.params.imageReference) }),
    );
  });
}
