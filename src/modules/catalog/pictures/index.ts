import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { CaseType } from '../casetypes.ts';
import type { DeviceGeometry } from '../devices.ts';
import {
  type AccessoryView,
  protectorDrawing,
  strapDrawing,
  wallChargerDrawing,
  wirelessChargerDrawing,
} from './accessories.ts';
import { PICTURE_PX, renderDrawing } from './canvas.ts';
import { type CaseView, caseDrawing, showcaseColor } from './case.ts';
import { type AccessoryKind, type ProductLook, inColourway } from '../look.ts';

/** Bumped whenever the drawing changes, so cached pictures are drawn again. */
export const PICTURES_VERSION = 5;

/** What a picture shows: everything the drawing depends on, and nothing else. */
export type PictureSubject =
  | { kind: 'case'; device: DeviceGeometry; caseType: CaseType; colorHex: string }
  | { kind: 'screen-protector'; device: DeviceGeometry }
  | { kind: 'wall-charger' | 'wireless-charger' | 'crossbody-strap' | 'wrist-strap'; colorHex: string };

const DEFAULT_COLOR: Record<Exclude<AccessoryKind, 'screen-protector'>, string> = {
  'wall-charger': '#f4f4f2',
  'wireless-charger': '#f2f3f5',
  'crossbody-strap': '#2f3136',
  'wrist-strap': '#c9a27e',
};

/** The subject of a product's pictures, or null when it has none (no device, case type or look). */
export function pictureSubject(p: {
  device: DeviceGeometry | null;
  caseType: CaseType | null;
  look: ProductLook | null;
}): PictureSubject | null {
  const a = p.look?.accessory;
  if (a === 'screen-protector') return p.device ? { kind: a, device: p.device } : null;
  if (a) return { kind: a, colorHex: p.look?.colorHex ?? DEFAULT_COLOR[a] };
  if (p.device && p.caseType)
    return {
      kind: 'case',
      device: p.device,
      caseType: inColourway(p.caseType, p.look),
      colorHex: p.look?.colorHex ?? showcaseColor(p.device),
    };
  return null;
}

/** The views of a subject, in the order the product's media lists them. */
export function viewsOf(s: PictureSubject): string[] {
  return s.kind === 'case' ? ['back', 'angle', 'side'] : ['front', 'angle', 'side'];
}

export interface PictureSpec {
  view: string;
  /** The product media file name, e.g. `back.webp`. */
  filename: string;
  /** Content key: the same subject and view is drawn once, whichever products show it. */
  key: string;
  width: number;
  height: number;
  contentType: 'image/webp';
}

/** The pictures a subject has, with their cache keys. */
export function pictureSpecs(s: PictureSubject): PictureSpec[] {
  return viewsOf(s).map((view) => ({
    view,
    filename: `${view}.webp`,
    key: createHash('sha256')
      .update(JSON.stringify([PICTURES_VERSION, PICTURE_PX, s, view]))
      .digest('hex')
      .slice(0, 40),
    width: PICTURE_PX,
    height: PICTURE_PX,
    contentType: 'image/webp',
  }));
}

/** Draws one picture (WebP). */
export async function drawPicture(s: PictureSubject, view: string): Promise<Buffer> {
  switch (s.kind) {
    case 'case':
      return renderDrawing(await caseDrawing(s.device, s.caseType, view as CaseView, s.colorHex));
    case 'screen-protector':
      return renderDrawing(protectorDrawing(s.device, view as AccessoryView));
    case 'wall-charger':
      return renderDrawing(wallChargerDrawing(s.colorHex, view as AccessoryView));
    case 'wireless-charger':
      return renderDrawing(wirelessChargerDrawing(s.colorHex, view as AccessoryView));
    default:
      return renderDrawing(strapDrawing(s.colorHex, s.kind === 'wrist-strap', view as AccessoryView));
  }
}

/**
 * One view of a subject in the format a file name asks for (a catalog file's `{picture: {view}}`);
 * null when the subject has no such view.
 */
export async function pictureFile(
  s: PictureSubject,
  view: string,
  format: 'png' | 'jpeg' | 'webp',
): Promise<Buffer | null> {
  if (!viewsOf(s).includes(view)) return null;
  const webp = await drawPicture(s, view);
  if (format === 'webp') return webp;
  const img = sharp(webp);
  return format === 'png' ? img.png({ compressionLevel: 7 }).toBuffer() : img.jpeg({ quality: 88 }).toBuffer();
}
