import { ApiError, notFound } from '../../platform/errors.ts';
import { OrganizationGate } from '../../platform/gate.ts';
import { isReference } from '../../platform/ids.ts';
import type { RenderingDeps } from './deps.ts';
import type { renderingLibrary } from './library.ts';
import type { RenderInputs } from './render-inputs.ts';
import { FORMATS, RenderInputError, type Template, TemplateUnavailableError, composeRender } from './renderer.ts';

/** Long edge of a live preview, in px. */
export const PREVIEW_EDGE = 600;
/**
 * Previews composed at once per process (2), waiting beyond that (16), and held by one
 * organization (4, composing or waiting): past its 4 an organization gets a 429, and only a
 * queue that several organizations fill answers 503. Freed slots go to the organizations in turn.
 */
export const previewGate = new OrganizationGate(2, 16, 4, 'previews');

/**
 * A live preview: the same composition at most `edge` px on its long edge, answered directly and
 * stored nowhere. It costs no rendertokens; the `previews` rate-limit bucket and a per-process cap
 * on previews in flight bound what it can cost the service.
 */
export async function previewRender(
  deps: RenderingDeps,
  lib: ReturnType<typeof renderingLibrary>,
  inputs: RenderInputs,
  orgId: string,
  input: { compositionReference: string; imageReference: string },
  edge = PREVIEW_EDGE,
) {
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
}
