import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Strict, Type } from '../../platform/http/schemas.ts';
import type { ProductionService } from './service.ts';
import { PICKING_PROBLEMS, QC_REASONS } from './stations.ts';

const Code = Type.String({ minLength: 1, maxLength: 100, description: 'The case’s code as scanned: `Unit_…`' });

/**
 * The scan stations (QC, picking problems, pack) through the operator API and podctl: the same
 * actions as the console's station pages; a refused scan is `409 scan_refused` with the reason.
 * The print station's scan is `POST /production/batches/{ref}/printed` (floor-routes.ts).
 */
export function stationsOperatorRoutes(app: FastifyInstance, s: { production: ProductionService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const st = s.production.stations;
  r.post(
    '/production/stations/qc',
    {
      config: { access: 'operator' },
      schema: {
        body: Strict({
          code: Code,
          verdict: Type.Optional(Type.String({ enum: ['pass', ...QC_REASONS], description: 'Default pass' })),
        }),
      },
    },
    async (req) => st.qc(req.body.code, (req.body.verdict ?? 'pass') as Parameters<typeof st.qc>[1]),
  );
  r.post(
    '/production/stations/picking',
    {
      config: { access: 'operator' },
      schema: { body: Strict({ code: Code, problem: Type.String({ enum: [...PICKING_PROBLEMS] }) }) },
    },
    async (req) => st.pickingProblem(req.body.code, req.body.problem as Parameters<typeof st.pickingProblem>[1]),
  );
  r.post(
    '/production/stations/pack',
    { config: { access: 'operator' }, schema: { body: Strict({ code: Code }) } },
    async (req) => st.pack(req.body.code),
  );
}
