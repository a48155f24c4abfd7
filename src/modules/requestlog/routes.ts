import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Strict, Type } from '../../platform/http/schemas.ts';
import type { RequestLog } from './recorder.ts';

const State = Strict({ recording: Type.Boolean() });

/**
 * The request log of this process, for operators: whether it records, what waits to be stored and
 * what was dropped; pausing and resuming it. Each node has its own (a node records what it answers).
 */
export function requestLogOperatorRoutes(app: FastifyInstance, s: { requestLog: RequestLog }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/request-log', { config: { access: 'operator' } }, async () => s.requestLog.state());
  r.put('/request-log', { config: { access: 'operator' }, schema: { body: State } }, async (req) =>
    s.requestLog.setRecording(req.body.recording),
  );
}
