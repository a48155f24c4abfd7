import { createHash } from 'node:crypto';
import type { CaseType } from '../../catalog/casetypes.ts';
import type { DeviceGeometry } from '../../catalog/devices.ts';
import { caseOutline } from '../../catalog/geometry.ts';
import { asBackgroundImageWork } from '../../../platform/images.ts';
import type { BlobStore } from '../../../platform/storage.ts';
import { materialFor, phoneColour } from '../materials.ts';
import { RenderInputError, type TemplateParts, type TemplatePictures } from '../renderer.ts';
import type { Corners } from './homography.ts';
import { PHOTO_VERSION, photoTemplate } from './template.ts';

/** A composition's template from a partner's photo: the photo's blob, its size and the marked corners. */
export interface PhotoGenerator {
  kind: 'photo';
  photo: string;
  width: number;
  height: number;
  corners: Corners;
}

/**
 * The template parts of a photo scene for one model and case type: drawn on first use, kept in the
 * blob store under a digest of everything the drawing depends on, decoded in the compositor's cache.
 */
export function photoParts(
  blobs: BlobStore,
  g: PhotoGenerator,
  device: DeviceGeometry,
  caseType: CaseType,
  output: { widthPx: number; heightPx: number },
  /** Reads the stored drawing under a key, or makes and stores it (generated.ts). */
  keep: (base: string, make: () => Promise<TemplatePictures>) => Promise<TemplatePictures>,
): TemplateParts {
  const size = { width: output.widthPx, height: output.heightPx };
  const material = materialFor(caseType, phoneColour(device));
  const digest = createHash('sha256')
    .update(JSON.stringify([PHOTO_VERSION, g, device, caseType, material, size]))
    .digest('hex')
    .slice(0, 32);
  const base = `rendering/generated/photo/${digest}`;
  const o = caseOutline(device, caseType);
  return {
    load: () =>
      keep(base, async () => {
        const photo = await blobs.get(g.photo);
        if (!photo) throw new RenderInputError('the scene photo is gone from the blob store');
        return asBackgroundImageWork(() =>
          photoTemplate(photo, { width: g.width, height: g.height }, g.corners, device, caseType, material, size),
        );
      }),
    material,
    backMm: [o.widthMm, o.heightMm],
    cacheKey: base,
  };
}
