import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import type { Readable } from 'node:stream';
import { ApiError, conflict, notFound, mustFind } from '../../platform/errors.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { asBackgroundImageWork } from '../../platform/images.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import { OrganizationGate } from '../../platform/gate.ts';
import type { RenderingDeps } from './deps.ts';
import type { renderingLibrary } from './library.ts';
import { FORMATS, RenderInputError, type Template, TemplateUnavailableError, composeRender } from './renderer.ts';
import { type CompositionRow, type RenderRow, renderingRepo as repo } from './repo.ts';
import { type TemplateParts, generatedTemplate } from './generated.ts';
import { PLAIN_MATERIAL, fromPrintArea } from './templates.ts';
import { amsterdamIso, secondsUntil, tokenWeek } from './week.ts';

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

/** The spec's polling interval. */
export const POLL_SECONDS = 60;
/** Long edge of a live preview, in px. */
export const PREVIEW_EDGE = 600;
/**
 * Previews composed at once per process (2), waiting beyond that (16), and held by one
 * organization (4, composing or waiting): past its 4 an organization gets a 429, and only a
 * queue that several organizations fill answers 503. Freed slots go to the organizations in turn.
 */
export const previewGate = new OrganizationGate(2, 16, 4, 'previews');

export function toRender(r: RenderRow) {
  const f = FORMATS[r.format];
  const done = r.status === 'completed';
  return {
    reference: r.id,
    compositionReference: r.composition_id,
    imageReference: r.image_id,
    status: r.status,
    thumbhash: done ? r.thumbhash : null,
    media: done ? { mimeType: f.mimeType, extension: f.extension, size: r.media_size! } : null,
    thumbnail: done ? { mimeType: f.mimeType, extension: f.extension, size: r.thumbnail_size! } : null,
    created: r.created_at.toISOString(),
    completed: r.completed_at ? r.completed_at.toISOString() : null,
    failureReason: r.status === 'failed' ? r.failure_reason : null,
  };
}

export type RenderFile =
  | { ready: false; retryAfter: number }
  | { ready: true; stream: Readable; size: number; mimeType: string; filename: string };

/** Creating renders (with the token deduction), reading them, and producing them in the job. */
export function renderService(deps: RenderingDeps, lib: ReturnType<typeof renderingLibrary>) {
  const { db, clock, blobs, log } = deps;
  /** Old print-area templates converted to UV maps, by their assets and geometry. */
  const legacy = new Map<string, Promise<TemplateParts>>();

  async function renderRow(orgId: string, ref: string): Promise<RenderRow> {
    return mustFind(isReference('Render', ref) ? await repo.render(db, orgId, ref) : null, 'Render', ref);
  }

  async function finish(
    row: RenderRow,
    outcome:
      | { failed: string }
      | { mediaKey: string; mediaSize: number; thumbKey: string; thumbSize: number; thumbhash: string },
  ) {
    await db.tx(async (tx) => {
      const at = clock.now();
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

  /** Reads everything a render needs; a missing piece is a permanent failure, not a retry. */
  async function inputs(
    row: Pick<RenderRow, 'composition_id' | 'organization_id' | 'image_id'>,
  ): Promise<{ template: Template; image: Buffer }> {
    const c = await repo.composition(db, row.composition_id);
    const p = c && (await repo.perspective(db, c.perspective_id));
    if (!c || !p) throw new RenderInputError('composition or perspective no longer exists');
    const image = await deps.images.imageForOrganization(row.organization_id, row.image_id);
    const bytes = image && (await deps.images.readImage(image.blobKey));
    if (!bytes) throw new RenderInputError(`image ${row.image_id} no longer exists`);
    const output = { widthPx: p.width_px, heightPx: p.height_px, format: p.format };
    return { image: bytes, template: { ...(await templateOf(c, output)), output } };
  }

  async function templateOf(c: CompositionRow, output: Template['output']): Promise<TemplateParts> {
    const asset = async (name: string, key: string | null) => {
      const data = key ? await blobs.get(key) : null;
      if (!data) throw new RenderInputError(`template asset missing: ${name} (${key})`);
      return data;
    };
    if (c.generator) {
      const shapes = await deps.catalog.productShapes([c.product_id]);
      return generatedTemplate(blobs, c.generator, shapes.get(c.product_id), output);
    }
    if (c.uv_blob_key) {
      return {
        load: async () => ({
          background: await asset('background', c.background_blob_key),
          uv: await asset('uv', c.uv_blob_key),
          layers: await asset('layers', c.layers_blob_key),
        }),
        material: c.material ?? PLAIN_MATERIAL,
        backMm: c.back_mm ?? [1, 1],
        cacheKey: `${c.background_blob_key}|${c.uv_blob_key}|${c.layers_blob_key}`,
      };
    }
    // An old print-area template: converted once, then served from the decoded-layer cache.
    const cacheKey = `${c.background_blob_key}|${c.mask_blob_key}|${c.overlay_blob_key}|${c.print_x},${c.print_y},${c.print_width},${c.print_height},${c.print_rotation}`;
    let converted = legacy.get(cacheKey);
    if (!converted) {
      converted = asBackgroundImageWork(async () =>
        fromPrintArea({
          background: await asset('background', c.background_blob_key),
          mask: await asset('mask', c.mask_blob_key),
          overlay: c.overlay_blob_key ? await asset('overlay', c.overlay_blob_key) : null,
          printArea: {
            x: c.print_x ?? 0,
            y: c.print_y ?? 0,
            width: c.print_width ?? 1,
            height: c.print_height ?? 1,
            rotation: c.print_rotation,
          },
        }),
      );
      legacy.set(cacheKey, converted);
      converted.catch(() => legacy.delete(cacheKey));
      while (legacy.size > 16) legacy.delete(legacy.keys().next().value!);
    }
    return { ...(await converted), cacheKey };
  }

  return {
    async createRender(orgId: string, input: { compositionReference: string; imageReference: string }) {
      const c = await lib.visibleComposition(orgId, input.compositionReference);
      const image = isReference('Image', input.imageReference)
        ? await deps.images.imageForOrganization(orgId, input.imageReference)
        : null;
      if (!image) throw notFound('Image', input.imageReference);
      const perspective = mustFind(
        await repo.perspective(db, c.perspective_id),
        'Composition',
        input.compositionReference,
      );
      const { rendertoken_limit: limit } = await deps.organization.organizationRow(orgId);
      const now = clock.now();
      const week = tokenWeek(now);
      const id = await db.tx(async (tx) => {
        const used = await repo.deduct(tx, orgId, week.week, c.token_cost, limit);
        if (used === null) {
          const retry = secondsUntil(week.resets, now);
          const remaining = Math.max(0, limit - (await repo.used(tx, orgId, week.week)));
          throw new ApiError(
            'rendertoken_limit_exceeded',
            `This render costs ${c.token_cost} rendertokens and ${remaining} of ${limit} remain this week; the limit resets at ${amsterdamIso(week.resets)} (Retry-After: ${retry} s)`,
            { headers: { 'retry-after': String(retry) } },
          );
        }
        const r = await repo.insertRender(tx, {
          id: newReference('Render'),
          organizationId: orgId,
          compositionId: c.id,
          imageId: image.reference,
          format: perspective.format,
          createdAt: now,
        });
        // `created` is true for exactly one caller (insert or failed→pending), so no dedupe key is needed.
        if (r.created) await enqueue(tx, clock, RENDER_JOB, { renderId: r.id }, { organizationId: orgId });
        return r.id;
      });
      return { reference: id };
    },

    /**
     * A live preview: the same composition at most PREVIEW_EDGE px on its long edge, answered
     * directly and stored nowhere. It costs no rendertokens; the `previews` rate-limit bucket and
     * a per-process cap on previews in flight bound what it can cost the service.
     */
    async preview(orgId: string, input: { compositionReference: string; imageReference: string }, edge = PREVIEW_EDGE) {
      const c = await lib.visibleComposition(orgId, input.compositionReference);
      const image = isReference('Image', input.imageReference)
        ? await deps.images.imageForOrganization(orgId, input.imageReference)
        : null;
      if (!image) throw notFound('Image', input.imageReference);
      return previewGate.run(orgId, async () => {
        let made: { template: Template; image: Buffer };
        try {
          made = await inputs({ composition_id: c.id, organization_id: orgId, image_id: image.reference });
        } catch (err) {
          if (err instanceof RenderInputError) throw new ApiError('composition_unavailable', err.message);
          throw err;
        }
        const { template } = made;
        const scale = Math.min(1, edge / Math.max(template.output.widthPx, template.output.heightPx));
        const output = {
          ...template.output,
          widthPx: Math.max(1, Math.round(template.output.widthPx * scale)),
          heightPx: Math.max(1, Math.round(template.output.heightPx * scale)),
        };
        try {
          const out = await composeRender({ ...template, output } as Template, made.image);
          return { bytes: out.media, mimeType: FORMATS[output.format].mimeType };
        } catch (err) {
          // The pictures are read when the renderer needs them, so a missing one is found here.
          if (err instanceof TemplateUnavailableError) throw new ApiError('composition_unavailable', err.message);
          throw err;
        }
      });
    },

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
      const { rendertoken_limit: limit } = await deps.organization.organizationRow(orgId);
      const week = tokenWeek(clock.now());
      const used = await repo.used(db, orgId, week.week);
      return { used, limit, remaining: Math.max(0, limit - used), resets: amsterdamIso(week.resets) };
    },

    /**
     * The job: read inputs, compose outside any transaction, write the files, then complete the
     * render in one transaction. A crash before that leaves it pending and the job runs again.
     */
    async runRender(renderId: string, attempt: { number: number; last: boolean }): Promise<void> {
      const row = await repo.renderById(db, renderId);
      if (row?.status !== 'pending') return;
      try {
        const { template, image } = await inputs(row);
        const out = await oneAtATime(() => composeRender(template, image));
        const ext = FORMATS[row.format].extension;
        const base = `renders/${row.organization_id}/${row.id}`;
        await blobs.put(`${base}/media.${ext}`, out.media);
        await blobs.put(`${base}/thumbnail.${ext}`, out.thumbnail);
        await finish(row, {
          mediaKey: `${base}/media.${ext}`,
          mediaSize: out.media.length,
          thumbKey: `${base}/thumbnail.${ext}`,
          thumbSize: out.thumbnail.length,
          thumbhash: out.thumbhash,
        });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (err instanceof RenderInputError || attempt.last) {
          log.warn({ renderId, attempt: attempt.number, reason: message }, 'render failed');
          await finish(row, {
            failed: err instanceof RenderInputError ? message : `gave up after ${attempt.number} attempts: ${message}`,
          });
          return;
        }
        throw err;
      }
    },
  };
}
