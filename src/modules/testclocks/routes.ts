import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Open, Strict, Timestamp, Type, errors } from '../../platform/http/schemas.ts';
import type { TestClocksService } from './service.ts';

const ClockView = Open({
  clock: Open({
    frozen: Type.Boolean({ description: 'true while the organization runs on its test clock' }),
    now: Timestamp,
    status: Type.String({
      enum: ['ready', 'advancing'],
      description: '`advancing` while jobs that fell due by the clock time are still running',
    }),
  }),
});

/** Test environment only: in production these paths do not exist (404). */
export function testClockRoutes(app: FastifyInstance, s: { testClocks: TestClocksService | null }): void {
  const clocks = s.testClocks;
  if (!clocks) return;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Test helpers'];
  const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;

  r.get(
    '/test-helpers/clock',
    {
      schema: {
        operationId: 'testGetClock',
        tags,
        summary: "Test environment: the organization's test clock",
        description: 'Without a test clock the organization runs on real time (`frozen: false`).',
        response: { 200: ClockView, ...errors() },
      },
    },
    async (req) => ({ clock: await clocks.view(org(req)) }),
  );
  r.post(
    '/test-helpers/clock/advance',
    {
      schema: {
        operationId: 'testAdvanceClock',
        tags,
        summary: "Test environment: move the organization's clock forward",
        description:
          'Freezes the organization at a time of its own and moves it forward: by an ISO 8601 duration (`advanceBy`) or to a timestamp (`to`), never backwards. Everything time-based follows it: claim windows, the rendertoken week, evidence retention, webhook and callback retries, timestamps of new records. Jobs that fell due run before the answer; `status: advancing` says some are still running.',
        body: Strict({
          clock: Strict(
            {
              advanceBy: Type.Optional(
                Type.String({ minLength: 2, maxLength: 50, description: 'ISO 8601 duration, e.g. `P1D`, `PT5M`' }),
              ),
              to: Type.Optional(Type.String({ format: 'date-time' })),
            },
            { minProperties: 1, maxProperties: 1 },
          ),
        }),
        response: { 200: ClockView, ...errors() },
      },
    },
    async (req) => ({ clock: await clocks.advance(org(req), req.body.clock) }),
  );
  r.delete(
    '/test-helpers/clock',
    {
      schema: {
        operationId: 'testDeleteClock',
        tags,
        summary: 'Test environment: back to real time',
        response: { 204: Type.Null(), ...errors() },
      },
    },
    async (req, reply) => {
      await clocks.remove(org(req));
      return reply.status(204).send(null);
    },
  );
}
