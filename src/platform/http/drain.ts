import type { FastifyInstance } from 'fastify';

/**
 * A node told to stop keeps serving for a while (`SHUTDOWN_DRAIN_SECONDS`) before it closes: its
 * `/readyz` answers 503 so the proxy's health check takes it out of rotation, and every answer says
 * `Connection: close` so kept-alive connections (the proxy's too) move to another node. Only then
 * does it stop listening and wait for the requests still running.
 */
const state = new WeakMap<FastifyInstance, { draining: boolean }>();

export function installDrain(app: FastifyInstance): void {
  const s = { draining: false };
  state.set(app, s);
  app.addHook('onRequest', (_request, reply, done) => {
    if (s.draining) reply.header('connection', 'close');
    done();
  });
}

export function startDraining(app: FastifyInstance): void {
  const s = state.get(app);
  if (s) s.draining = true;
}

export function isDraining(app: FastifyInstance): boolean {
  return state.get(app)?.draining ?? false;
}
