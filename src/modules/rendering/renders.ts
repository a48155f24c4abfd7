import { conflict, ApiError, mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference } from '../../platform/ids.ts';
import { createRender } from './create-render.ts';
import type { RenderingDeps } from './deps.ts';
import type { renderingLibrary } from './library.ts';
import { previewRender } from './preview-render.ts';
import { renderInputs } from './render-inputs.ts';
import { POLL_SECONDS, type RenderFile, toRender } from './render-view.ts';
import { FORMATS } from './renderer.ts';
import { type RenderRow, renderingRepo as repo } from './repo.ts';
import { type RenderAttempt, runRender } from './run-render.ts';
import { amsterdamIso, tokenWeek } from './week.ts';

export { PREVIEW_EDGE, previewGate } from './preview-render.ts';
export { POLL_SECONDS, type RenderFile, toRender } from './render-view.ts';
export { RENDER_JOB } from './run-render.ts';

/**
 * Renders: creating them (create-render.ts), live previews (preview-render.ts), the render job
 * (run-render.ts), and reading them, their files and the week's rendertokens (here).
 */
export function renderService(deps: RenderingDeps, lib: ReturnType<typeof renderingLibrary>) {
  const { db, clock, blobs } = deps;
  const inputs = renderInputs(deps);

  async function renderRow(orgId: string, ref: string): Promise<RenderRow> {
    return mustFind(isReference('Render', ref) ? await repo.render(db, orgId, ref) : null, 'Render', ref);
  }

  return {
    createRender: (orgId: string, input: { compositionReference: string; imageReference: string }) =>
      createRender(deps, lib, orgId, input),
    preview: (orgId: string, input: { compositionReference: string; imageReference: string }, edge?: number) =>
      previewRender(deps, lib, inputs, orgId, input, edge),
    runRender: (renderId: string, attempt: RenderAttempt) => runRender(deps, inputs, renderId, attempt),

    async render(orgId: string, ref: string) {
      return toRender(await renderRow(orgId, ref));
    },
    /** The render as GET shows it, or null when it does not exist or belongs to another organization. */
    async findRender(orgId: string, ref: string) {
      const row = isReference('Render', ref) ? await repo.render(db, orgId, ref) : null;
      return row ? toRender(row) : null;
    },

    /** Newest first; not in the spec's table, added for the dashboard and for catching up. */
    async listRenders(orgId: string, query: PageRequest & { status?: 'pending' | 'completed' | 'failed' }) {
      return listPage(deps.cursors, query, {
        plural: 'renders',
        scope: `renders:${query.status ?? ''}`,
        load: (ks) => repo.renders(db, orgId, ks, query.status ?? null),
        item: toRender,
      });
    },

    async renderFile(orgId: string, ref: string, which: 'media' | 'thumbnail'): Promise<RenderFile> {
      const row = await renderRow(orgId, ref);
      if (row.status === 'pending') return { ready: false, retryAfter: POLL_SECONDS };
      if (row.status === 'failed')
        throw conflict(
          'render_failed',
          `Render ${row.id} failed and has no files: ${row.failure_reason ?? 'unknown reason'}`,
        );
      const key = which === 'media' ? row.media_blob_key! : row.thumbnail_blob_key!;
      const file = await blobs.stream(key);
      if (!file) throw new ApiError('internal_error', `The ${which} file of render ${row.id} is missing from storage`);
      const f = FORMATS[row.format];
      return {
        ready: true,
        ...file,
        mimeType: f.mimeType,
        filename: `${row.id}${which === 'thumbnail' ? '-thumbnail' : ''}.${f.extension}`,
      };
    },

    async rendertokens(orgId: string) {
      const { rendertokenLimit: limit } = await deps.organization.organizationFacts(orgId);
      const week = tokenWeek(clock.now());
      const used = await repo.used(db, orgId, week.week);
      return { used, limit, remaining: Math.max(0, limit - used), resets: amsterdamIso(week.resets) };
    },
  };
}
