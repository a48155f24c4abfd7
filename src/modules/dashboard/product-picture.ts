import type { FastifyReply } from 'fastify';
import { CASE_TYPES, isCaseType } from '../catalog/casetypes.ts';
import type { DeviceGeometry } from '../catalog/devices.ts';
import type { ListPicture } from '../catalog/service.ts';
import { type Html, escapeHtml, html } from './html.ts';

const SCALE = 4; // SVG units per millimetre
const n = (mm: number) => (mm * SCALE).toFixed(1);

/**
 * A drawing of a product from its device's geometry and its case type, for products that have no
 * pictures yet (derived device products get theirs only once someone uploads or renders them):
 * the back of the case with the camera cut-out, lenses, the MagSafe ring or the book spine, or the
 * front glass of a screen protector. Served by the service itself, so no request leaves it.
 */
export function productPictureSvg(o: { name: string; geometry: DeviceGeometry; caseType: string | null }): string {
  const { body, camera } = o.geometry;
  const ct = isCaseType(o.caseType) ? CASE_TYPES[o.caseType] : null;
  const wall = ct?.wallMm ?? 0.6;
  const w = body.widthMm + 2 * wall;
  const h = body.heightMm + 2 * wall;
  const pad = 3;
  const phone = o.geometry.colors[0]?.hex ?? '#5f6368';
  const outline = (inset: number, fill: string, extra = '') =>
    `<rect x="${n(pad + inset)}" y="${n(pad + inset)}" width="${n(w - 2 * inset)}" height="${n(h - 2 * inset)}" rx="${n(Math.max(0, body.cornerRadiusMm + wall - inset))}" fill="${fill}"${extra}/>`;
  const parts: string[] = [];
  if (!ct) {
    // Without a case type the product is worn on the front: a screen protector over the display.
    parts.push(outline(wall, '#1f2328'));
    parts.push(outline(wall + 1.2, '#cfe3f5', ' fill-opacity="0.9"'));
    parts.push(
      `<circle cx="${n(pad + w / 2)}" cy="${n(pad + wall + 5)}" r="${n(1.6)}" fill="#1f2328"/>`,
      `<path d="M${n(pad + w * 0.2)} ${n(pad + h * 0.75)} L${n(pad + w * 0.75)} ${n(pad + h * 0.2)}" stroke="#fff" stroke-width="${n(2)}" stroke-opacity="0.6" stroke-linecap="round"/>`,
    );
  } else {
    const m = ct.material;
    parts.push(outline(0, m.baseHex, ' stroke="#1f2328" stroke-opacity="0.35"'));
    if (m.transparency > 0) parts.push(outline(wall, phone, ` fill-opacity="${m.transparency.toFixed(2)}"`));
    if (m.book)
      parts.push(
        `<clipPath id="shell">${outline(0, '#000')}</clipPath><rect x="${n(pad)}" y="${n(pad)}" width="${n(4)}" height="${n(h)}" fill="#000" fill-opacity="0.25" clip-path="url(#shell)"/>`,
      );
    if (m.finish === 'leather')
      parts.push(outline(1.5, 'none', ` stroke="#fff" stroke-opacity="0.35" stroke-dasharray="${n(1.2)} ${n(1)}"`));
    if (m.magsafeRing)
      parts.push(
        `<circle cx="${n(pad + w / 2)}" cy="${n(pad + h * 0.55)}" r="${n(23)}" fill="none" stroke="#80868b" stroke-opacity="0.6" stroke-width="${n(1.5)}"/>`,
      );
    const cx = pad + wall + camera.xMm;
    const cy = pad + wall + camera.yMm;
    parts.push(
      camera.shape === 'circle'
        ? `<circle cx="${n(cx + camera.widthMm / 2)}" cy="${n(cy + camera.heightMm / 2)}" r="${n(camera.widthMm / 2 + 0.8)}" fill="#1f2328"/>`
        : `<rect x="${n(cx - 0.8)}" y="${n(cy - 0.8)}" width="${n(camera.widthMm + 1.6)}" height="${n(camera.heightMm + 1.6)}" rx="${n(camera.cornerRadiusMm + 0.8)}" fill="#1f2328"/>`,
    );
    for (const l of camera.lenses)
      parts.push(
        `<circle cx="${n(cx + l.xMm)}" cy="${n(cy + l.yMm)}" r="${n(l.diameterMm / 2)}" fill="#0b0d10" stroke="#5f6368" stroke-width="${n(0.5)}"/>`,
      );
  }
  const W = w + 2 * pad;
  const H = h + 2 * pad;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${n(W)} ${n(H)}" width="${n(W)}" height="${n(H)}" role="img"><title>${escapeHtml(o.name)}</title>${parts.join('')}</svg>`;
}

export const sendPicture = (reply: FastifyReply, svg: string) =>
  reply.type('image/svg+xml; charset=utf-8').header('cache-control', 'private, max-age=300').send(svg);

/**
 * A product's thumbnail in a list, under `base` (the product's route with its `media/` files and
 * `picture.svg`). A drawn picture is drawn when the browser asks for it, lazily, so a list never
 * waits for drawings: until it arrives the device's drawing (`drawing`) or a grey square stands in
 * its frame.
 */
export function productThumb(
  base: string,
  t: { picture: ListPicture | null; drawing: boolean },
  size: number,
  none: Html | string = '',
): Html {
  const svg = `${base}/picture.svg`;
  if (!t.picture)
    return t.drawing
      ? html`<img src="${svg}" alt="" width="${size}" height="${size}" loading="lazy" class="thumb">`
      : html`${none}`;
  const src = `${base}/media/${encodeURIComponent(t.picture.filename)}`;
  return t.picture.drawn
    ? html`<img src="${src}" alt="" width="${size}" height="${size}" loading="lazy" decoding="async" class="thumb drawn"${t.drawing ? html` style="background-image:url('${svg}')"` : ''}>`
    : html`<img src="${src}" alt="" width="${size}" height="${size}" loading="lazy" class="thumb">`;
}
