import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Strict, Type } from '../../platform/http/schemas.ts';
import { sendPdf } from './routes.ts';
import type { ProductionService } from './service.ts';

const BatchParams = Strict({ batchReference: Type.String({ maxLength: 200 }) });
const FileParams = Strict({
  batchReference: Type.String({ maxLength: 200 }),
  kind: Type.String({ enum: ['print-file', 'pick-list', 'batch-sheet'] }),
});

/** Batches for the printers, through the operator API (and podctl). */
export function floorOperatorRoutes(app: FastifyInstance, s: { production: ProductionService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const f = s.production.floor;
  r.get('/production/batches', { config: { access: 'operator' } }, async () => ({ batches: await f.openBatches() }));
  r.post(
    '/production/batches',
    {
      config: { access: 'operator' },
      schema: {
        body: Type.Optional(
          Strict({
            flush: Type.Optional(
              Type.Boolean({ description: 'Make the last, partly filled batch of each kind too (default false)' }),
            ),
          }),
        ),
      },
    },
    async (req) => f.batchUnits({ flush: req.body?.flush ?? false }),
  );
  r.get(
    '/production/batches/:batchReference',
    { config: { access: 'operator' }, schema: { params: BatchParams } },
    async (req) => f.batch(req.params.batchReference),
  );
  r.post(
    '/production/batches/:batchReference/printed',
    { config: { access: 'operator' }, schema: { params: BatchParams } },
    async (req) => f.markPrinted(req.params.batchReference),
  );
  r.get(
    '/production/batches/:batchReference/files/:kind',
    { config: { access: 'operator' }, schema: { params: FileParams } },
    async (req, reply) => sendPdf(reply, await f.filePdf(req.params.batchReference, req.params.kind)),
  );
  r.post(
    '/production/batches/:batchReference/files',
    { config: { access: 'operator' }, schema: { params: BatchParams } },
    async (req, reply) => reply.status(202).send(await f.remakeFiles(req.params.batchReference)),
  );
}
