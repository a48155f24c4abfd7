import { ApiError, mustFind, notFound } from '../../platform/errors.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import type { RenderingDeps } from './deps.ts';
import type { renderingLibrary } from './library.ts';
import { renderingRepo as repo } from './repo.ts';
import { RENDER_JOB } from './run-render.ts';
import { amsterdamIso, secondsUntil, tokenWeek } from './week.ts';

/**
 * POST /renders: deducts the composition's rendertokens (429 when the week's limit would be
 * passed, nothing deducted) and creates the render pending with its job, in one transaction. The
 * same composition and image give the same render back.
 */
export async function createRender(
  deps: RenderingDeps,
  lib: ReturnType<typeof renderingLibrary>,
  orgId: string,
  input: { compositionReference: string; imageReference: string },
) {
  const { db, clock } = deps;
  const c = await lib.visibleComposition(orgId, input.compositionReference);
  const image = isReference('Image', input.imageReference)
    ? await deps.images.imageForOrganization(orgId, input.imageReference)
    : null;
  if (!image) throw notFound('Image', input.imageReference);
  const perspective = mustFind(await repo.perspective(db, c.perspective_id), 'Composition', input.compositionReference);
  const { rendertokenLimit: limit } = await deps.organization.organizationFacts(orgId);
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
}
