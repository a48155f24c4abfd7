import type { Worker } from '../../platform/jobs/worker.ts';
import { RENDER_JOB } from './renders.ts';
import type { RenderingService } from './service.ts';

/**
 * One render per job. The worker renews the lease while the render runs; a worker that dies
 * mid-render stops renewing it, and another one renders it again a minute later (the render is
 * still pending).
 */
export function registerRenderingJobs(s: { worker: Worker; rendering: RenderingService }): void {
  s.worker.register(RENDER_JOB, {
    pool: 'renders',
    backoffMs: (attempts) => Math.min(600_000, 5000 * 2 ** (attempts - 1)),
    run: (payload: { renderId: string }, job, attempt) =>
      s.rendering.runRender(String(payload.renderId), {
        number: job.attempts,
        last: job.max_attempts !== null && job.attempts >= job.max_attempts,
        succeedIn: attempt.succeedIn,
      }),
  });
}
