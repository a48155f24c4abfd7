import type { PrintFit } from '../catalog/artwork-fit.ts';
import type { RawTemplate } from './raw-template.ts';
import type { Material } from './warp.ts';

/* What a render is made from: templates, their output and the errors a render can fail with. */

export type OutputFormat = 'png' | 'jpeg' | 'webp';

export const FORMATS: Record<OutputFormat, { mimeType: string; extension: string }> = {
  png: { mimeType: 'image/png', extension: 'png' },
  jpeg: { mimeType: 'image/jpeg', extension: 'jpg' },
  webp: { mimeType: 'image/webp', extension: 'webp' },
};

/** Where a rectangle template's image goes on the background, in background pixels. */
export interface PrintArea {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Degrees, clockwise, about the print area's centre. */
  rotation: number;
}

/** A render that can never succeed (bad template or image): retrying is pointless. */
export class RenderInputError extends Error {}

/** A template's three pictures, all of one size (the template's). */
export interface TemplatePictures {
  /** The scene with the phone and case in it, RGB. */
  background: Buffer;
  /** 16-bit PNG: R = u, G = v (0..65535 across the case back) of the artwork each pixel shows. */
  uv: Buffer;
  /** R = mask (255: the printed back), G = shading (multiply), B = highlight (screen). */
  layers: Buffer;
}

/**
 * A template's pictures given, or read by `load` only when their decoded layers are not held: a
 * render of a held template then reads nothing (its three files, ~1-2 MB, would otherwise be read
 * and left for the collector on every render). `load` needs the cache key the decoded layers are held under.
 */
export type TemplateSource =
  | TemplatePictures
  | { load: () => Promise<TemplatePictures | RawTemplate>; cacheKey: string };

/** What a composition needs besides its output size. */
export type TemplateParts = TemplateSource & {
  material: Material;
  /** What the UV map spans, mm, centred on the print area (the print area, or it and its bleed). */
  backMm: [number, number];
  /** The product's print area and bleed the artwork is fitted to (the fit rule); none: `backMm`. */
  fit?: PrintFit;
  /** Names this template for the decoded-layer cache (e.g. its blob keys); none: not cached. */
  cacheKey?: string;
};

/** A template drawn or converted here: its pictures and its look. */
export type DrawnTemplate = TemplatePictures & { material: Material; backMm: [number, number] };

/**
 * Everything a composition needs. The output may be another size than the template's pictures and
 * is cut from them like `fit: cover`.
 */
export type Template = TemplateParts & { output: { widthPx: number; heightPx: number; format: OutputFormat } };

/** A template's pictures could not be read (storage): not the render's fault, so it may be retried. */
export class TemplateLoadError extends Error {
  constructor(readonly reason: unknown) {
    super('template pictures could not be read');
  }
}

/** A template's pictures are gone (a deleted asset or scene file): the composition's fault. */
export class TemplateUnavailableError extends RenderInputError {}

export async function picturesOf(t: Template): Promise<TemplatePictures | RawTemplate> {
  if (!('load' in t)) return t;
  try {
    return await t.load();
  } catch (err) {
    throw err instanceof RenderInputError ? new TemplateUnavailableError(err.message) : new TemplateLoadError(err);
  }
}
