import type { Worker } from '../../platform/jobs/worker.ts';
import { RENDER_JOB } from './renders.ts';
import type { RenderingService } from './service.ts';

/**
 * One render per job. The lease outlives a slow render comfortably; a worker that dies mid-render
 * loses the lease and another one renders it again (the render is still pending).
 */
export function registerRenderingJobs(s: { worker: Worker; rendering: RenderingService }): void {
  s.worker.register(RENDER_JOB, {
    pool: 'renders',
    leaseMs: 120_000,
    backoffMs: (attempts) => Math.min(600_000, 5000 * 2 ** (attempts - 1)),
    run: (payload: { renderId: string }, job) =>
      s.rendering.runRender(String(payload.renderId), {
        number: job.attempts,
        last: job.max_attempts !== null && job.attempts >= job.max_attempts,
      }),
  });
}
