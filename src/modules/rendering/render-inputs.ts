import { asBackgroundImageWork } from '../../platform/images.ts';
import type { RenderingDeps } from './deps.ts';
import { type TemplateParts, generatedTemplate } from './generated.ts';
import { RenderInputError, type Template } from './renderer.ts';
import { type CompositionRow, type RenderRow, renderingRepo as repo } from './repo.ts';
import { PLAIN_MATERIAL, fromPrintArea } from './templates.ts';

/**
 * What a render or a preview needs: the composition's template (generated, stored as a UV map, or
 * a rectangle template converted once) and the organization's image. A missing piece is a
 * RenderInputError: a permanent failure, not a retry.
 */
export function renderInputs(deps: RenderingDeps) {
  const { db, blobs } = deps;
  /** Rectangle templates converted to UV maps, by their assets and geometry. */
  const legacy = new Map<string, Promise<TemplateParts>>();

  const asset = async (name: string, key: string | null) => {
    const data = key ? await blobs.get(key) : null;
    if (!data) throw new RenderInputError(`template asset missing: ${name} (${key})`);
    return data;
  };

  /** A rectangle template: converted once, then served from the decoded-layer cache. */
  async function converted(c: CompositionRow): Promise<TemplateParts> {
    const cacheKey = `${c.background_blob_key}|${c.mask_blob_key}|${c.overlay_blob_key}|${c.print_x},${c.print_y},${c.print_width},${c.print_height},${c.print_rotation}`;
    let made = legacy.get(cacheKey);
    if (!made) {
      made = asBackgroundImageWork(async () =>
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
      legacy.set(cacheKey, made);
      made.catch(() => legacy.delete(cacheKey));
      while (legacy.size > 16) legacy.delete(legacy.keys().next().value!);
    }
    return { ...(await made), cacheKey };
  }

  async function templateOf(c: CompositionRow, output: Template['output']): Promise<TemplateParts> {
    if (c.generator) {
      const shapes = await deps.catalog.productShapes([c.product_id]);
      return generatedTemplate(deps, c.generator, shapes.get(c.product_id), output);
    }
    if (!c.uv_blob_key) return converted(c);
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

  /** Reads everything a render needs. */
  return async function inputs(
    row: Pick<RenderRow, 'composition_id' | 'organization_id' | 'image_id'>,
  ): Promise<{ template: Template; image: Buffer }> {
    const c = await repo.composition(db, row.composition_id);
    const p = c && (await repo.perspective(db, c.perspective_id));
    if (!c || !p) throw new RenderInputError('composition or perspective no longer exists');
    // A render queued before its composition was retired fails with the reason (its template's
    // assets may be gone), rather than waiting for a template that is never made.
    if (c.unavailable_at) throw new RenderInputError(`composition ${c.id} is no longer available`);
    const image = await deps.images.imageForOrganization(row.organization_id, row.image_id);
    const bytes = image && (await deps.images.readImage(image.blobKey));
    if (!bytes) throw new RenderInputError(`image ${row.image_id} no longer exists`);
    const output = { widthPx: p.width_px, heightPx: p.height_px, format: p.format };
    return { image: bytes, template: { ...(await templateOf(c, output)), output } };
  };
}

export type RenderInputs = ReturnType<typeof renderInputs>;
