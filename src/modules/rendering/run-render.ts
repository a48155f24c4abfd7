import type { Executor } from '../../platform/db/index.ts';
import { asBackgroundImageWork } from '../../platform/images.ts';
import type { RenderingDeps } from './deps.ts';
import type { RenderInputs } from './render-inputs.ts';
import { toRender } from './render-view.ts';
import { FORMATS, RenderInputError, composeRender } from './renderer.ts';
import { type RenderRow, renderingRepo as repo } from './repo.ts';

export const RENDER_JOB = 'rendering.render';

/**
 * One composition at a time per process: the worker runs several jobs at once and each composition
 * keeps a core busy in libvips, so on a small node parallel renders would take every core from the
 * API requests of the same process. Renders queue here instead (they are asynchronous anyway), and
 * their libvips threads run at a lower CPU priority than the event loop.
 */
let composing: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const background = () => asBackgroundImageWork(fn);
  const run = composing.then(background, background);
  composing = run.catch(() => {});
  return run;
}

type Outcome =
  | { failed: string }
  | { mediaKey: string; mediaSize: number; thumbKey: string; thumbSize: number; thumbhash: string };

/** Which attempt of the render's job this is; `succeedIn` completes the job in a transaction. */
export interface RenderAttempt {
  number: number;
  last: boolean;
  succeedIn?: (tx: Executor) => Promise<void>;
}

/**
 * Completes or fails the render and records its event, in one transaction with the job's own
 * completion: the render and its job commit together, and a render costs one statement and one
 * turn at PGlite's one connection fewer.
 */
async function finish(deps: RenderingDeps, row: RenderRow, outcome: Outcome, attempt: RenderAttempt) {
  await deps.db.tx(async (tx) => {
    const at = deps.clock.now();
    await attempt.succeedIn?.(tx);
    const done =
      'failed' in outcome
        ? await repo.failRender(tx, row.id, outcome.failed, at)
        : await repo.completeRender(tx, row.id, { ...outcome, at });
    if (!done) return; // another worker finished it first
    await deps.events?.record(tx, {
      organizationId: row.organization_id,
      type: done.status === 'completed' ? 'render.completed' : 'render.failed',
      data: { render: toRender(done) },
    });
  });
}

/**
 * The render job: read inputs, compose outside any transaction, write the files, then complete the
 * render in one transaction. A crash before that leaves it pending and the job runs again.
 */
export async function runRender(
  deps: RenderingDeps,
  inputs: RenderInputs,
  renderId: string,
  attempt: RenderAttempt,
): Promise<void> {
  const { db, blobs, log } = deps;
  const row = await repo.renderById(db, renderId);
  if (row?.status !== 'pending') return;
  try {
    const { template, image } = await inputs(row);
    const out = await oneAtATime(() => composeRender(template, image));
    const ext = FORMATS[row.format].extension;
    const base = `renders/${row.organization_id}/${row.id}`;
    await blobs.put(`${base}/media.${ext}`, out.media);
    await blobs.put(`${base}/thumbnail.${ext}`, out.thumbnail);
    await finish(
      deps,
      row,
      {
        mediaKey: `${base}/media.${ext}`,
        mediaSize: out.media.length,
        thumbKey: `${base}/thumbnail.${ext}`,
        thumbSize: out.thumbnail.length,
        thumbhash: out.thumbhash,
      },
      attempt,
    );
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof RenderInputError || attempt.last) {
      log.warn({ renderId, attempt: attempt.number, reason: message }, 'render failed');
      await finish(
        deps,
        row,
        {
          failed: err instanceof RenderInputError ? message : `gave up after ${attempt.number} attempts: ${message}`,
        },
        attempt,
      );
      return;
    }
    throw err;
  }
}
