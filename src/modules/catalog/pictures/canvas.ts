import sharp from 'sharp';
import { type Pt, bounds } from './scene.ts';

/** Pictures are square, this many pixels a side. */
export const PICTURE_PX = 1000;
/** The backdrop and the soft shadow have no detail: drawn at a quarter size and scaled up (blur is costly). */
const BACKDROP_SCALE = 0.25;

/** Convex hull (monotone chain) of projected points: the subject's silhouette for its shadow. */
export function hull(points: Pt[]): Pt[] {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length < 3) return pts;
  const cross = (o: Pt, a: Pt, b: Pt) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list: Pt[]) => {
    const out: Pt[] = [];
    for (const p of list) {
      while (out.length >= 2 && cross(out[out.length - 2], out[out.length - 1], p) <= 0) out.pop();
      out.push(p);
    }
    return out.slice(0, -1);
  };
  return [...half(pts), ...half([...pts].reverse())];
}

/** A drawing in projected millimetres: what goes in <defs>, the drawing, and its outline for the shadow. */
export interface Drawing {
  defs: string;
  body: string;
  /** Projected points whose convex hull is the subject's silhouette. */
  outline: Pt[];
  /** Things lying flat on the table draw their own contact shadow: no hull shadow then. */
  flat?: boolean;
  /** The points whose hull casts the shadow, when not all of `outline` (a cable lying on the table). */
  shadow?: Pt[];
}

/** How a drawing is placed on the canvas: fitted (never clipped) inside a margin, room left for the shadow. */
function placement(d: Drawing, size: number) {
  const b = bounds(d.outline);
  const w = b.maxX - b.minX;
  const h = b.maxY - b.minY;
  const shadowOff = Math.max(w, h) * 0.035;
  const s = (size * 0.82) / Math.max(w + shadowOff, h + shadowOff);
  return {
    s,
    shadowOff,
    tx: (size - (w + shadowOff) * s) / 2 - b.minX * s,
    ty: (size - (h + shadowOff) * s) / 2 - b.minY * s,
  };
}

const svgDoc = (size: number, inner: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">${inner}</svg>`;

/** The SVG of the drawing over `backdrop` (an image URI stretched over the canvas). */
export function pictureSvg(d: Drawing, backdrop: string, size = PICTURE_PX): string {
  const { s, tx, ty } = placement(d, size);
  return svgDoc(
    size,
    `<defs>${d.defs}</defs><image href="${backdrop}" width="${size}" height="${size}" preserveAspectRatio="none"/><g transform="translate(${tx.toFixed(2)},${ty.toFixed(2)}) scale(${s.toFixed(4)})">${d.body}</g>`,
  );
}

/** The studio backdrop with the subject's soft shadow, at `size` pixels. */
export function backdropSvg(d: Drawing, size: number, full = PICTURE_PX): string {
  const k = size / full;
  const { s, tx, ty, shadowOff } = placement(d, full);
  const shadow = (d.flat ? [] : hull(d.shadow ?? d.outline))
    .map(([x, y]) => `${(((x + shadowOff) * s + tx) * k).toFixed(2)},${(((y + shadowOff) * s + ty) * k).toFixed(2)}`)
    .join(' ');
  const blur = shadowOff * s * k * 0.9;
  return svgDoc(
    size,
    `<defs><radialGradient id="bg" cx="45%" cy="38%" r="75%"><stop offset="0" stop-color="#ffffff"/><stop offset="0.7" stop-color="#eef0f3"/><stop offset="1" stop-color="#dfe2e7"/></radialGradient><filter id="sh" x="-30%" y="-30%" width="160%" height="160%"><feGaussianBlur stdDeviation="${blur.toFixed(2)}"/></filter></defs><rect width="${size}" height="${size}" fill="url(#bg)"/><polygon points="${shadow}" fill="#1d2330" opacity="0.3" filter="url(#sh)"/>`,
  );
}

/** The finished picture, WebP: the backdrop is drawn small (it has no detail) and stretched under the subject. */
export async function renderDrawing(d: Drawing, size = PICTURE_PX): Promise<Buffer> {
  const small = Math.round(size * BACKDROP_SCALE);
  const backdrop = await sharp(Buffer.from(backdropSvg(d, small, size)))
    .png({ compressionLevel: 1 })
    .toBuffer();
  const uri = `data:image/png;base64,${backdrop.toString('base64')}`;
  return sharp(Buffer.from(pictureSvg(d, uri, size)))
    .webp({ quality: 86, effort: 2 })
    .toBuffer();
}
