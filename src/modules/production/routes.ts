import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Strict, Type } from '../../platform/http/schemas.ts';
import type { ProductionService } from './service.ts';

const OrderParams = Strict({ orderReference: Type.String({ maxLength: 200 }) });
const LineParams = Strict({
  orderReference: Type.String({ maxLength: 200 }),
  orderlineIndex: Type.Integer({ minimum: 1, maximum: 10_000 }),
});
const ShipmentParams = Strict({ shipmentReference: Type.String({ maxLength: 200 }) });
const DocumentParams = Strict({
  shipmentReference: Type.String({ maxLength: 200 }),
  kind: Type.String({ enum: ['shipping-label', 'packing-slip'] }),
});

export function sendPdf(reply: FastifyReply, file: { bytes: Buffer; filename: string }) {
  return reply
    .header('content-type', 'application/pdf')
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .header('cache-control', 'private, no-cache')
    .send(file.bytes);
}

/** Print files, labels and packing slips for the factory, through the operator API (and podctl). */
export function productionOperatorRoutes(app: FastifyInstance, s: { production: ProductionService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const p = s.production;
  r.get('/fulfilment-queue', { config: { access: 'operator' } }, async () => p.queue());
  r.get(
    '/orders/:orderReference/print-files',
    { config: { access: 'operator' }, schema: { params: OrderParams } },
    async (req) => p.orderPrintFiles(req.params.orderReference),
  );
  r.post(
    '/orders/:orderReference/print-files',
    { config: { access: 'operator' }, schema: { params: OrderParams } },
    async (req, reply) => reply.status(202).send(await p.remakePrintFiles(req.params.orderReference)),
  );
  r.get(
    '/orders/:orderReference/print-files/:orderlineIndex',
    { config: { access: 'operator' }, schema: { params: LineParams } },
    async (req, reply) => sendPdf(reply, await p.printFilePdf(req.params.orderReference, req.params.orderlineIndex)),
  );
  r.post(
    '/orders/:orderReference/cancel',
    {
      config: { access: 'operator' },
      schema: {
        params: OrderParams,
        body: Strict({
          reason: Type.String({ minLength: 1, maxLength: 500 }),
          orderlines: Type.Optional(
            Type.Array(Type.Integer({ minimum: 1, maximum: 10_000 }), {
              minItems: 1,
              maxItems: 500,
              uniqueItems: true,
            }),
          ),
        }),
      },
    },
    async (req) => p.cancel(req.params.orderReference, req.body),
  );
  r.post(
    '/orders/:orderReference/produced',
    { config: { access: 'operator' }, schema: { params: OrderParams } },
    async (req, reply) => {
      await p.markProduced(req.params.orderReference);
      return reply.status(204).send(null);
    },
  );
  r.get(
    '/shipments/:shipmentReference/documents',
    { config: { access: 'operator' }, schema: { params: ShipmentParams } },
    async (req) => p.shipmentDocuments(req.params.shipmentReference),
  );
  r.post(
    '/shipments/:shipmentReference/documents',
    { config: { access: 'operator' }, schema: { params: ShipmentParams } },
    async (req, reply) => reply.status(202).send(await p.remakeDocuments(req.params.shipmentReference)),
  );
  r.get(
    '/shipments/:shipmentReference/documents/:kind',
    { config: { access: 'operator' }, schema: { params: DocumentParams } },
    async (req, reply) => sendPdf(reply, await p.documentPdf(req.params.shipmentReference, req.params.kind)),
  );
}
