import sharp from 'sharp';
import type { PrintArea } from './renderer.ts';

/**
 * Template assets drawn by the project itself (SVG rasterised by sharp), so the demo and the tests
 * need no downloaded artwork. The output is deterministic: the same call gives the same bytes.
 */

export interface SceneStyle {
  /** Two colours of the backdrop gradient. */
  from: string;
  to: string;
  /** Colour of the table or surface the case lies on. */
  surface: string;
}

/** A backdrop with a surface and a soft drop shadow where the case will lie. */
export async function drawBackground(
  width: number,
  height: number,
  area: PrintArea,
  style: SceneStyle,
): Promise<Buffer> {
  const cx = area.x + area.width / 2;
  const cy = area.y + area.height / 2;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs>
    <linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${style.from}"/><stop offset="1" stop-color="${style.to}"/></linearGradient>
    <filter id="blur"><feGaussianBlur stdDeviation="${Math.max(2, Math.round(area.width / 25))}"/></filter>
  </defs>
  <rect width="100%" height="100%" fill="url(#g)"/>
  <rect y="${Math.round(height * 0.62)}" width="100%" height="${Math.round(height * 0.38)}" fill="${style.surface}"/>
  <g transform="rotate(${area.rotation} ${cx} ${cy})">
    <rect x="${area.x + area.width * 0.06}" y="${area.y + area.height * 0.05}" width="${area.width}" height="${area.height}" rx="${area.width * 0.12}" fill="#000" fill-opacity="0.35" filter="url(#blur)"/>
  </g>
</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/**
 * The case shape over the print area: white prints, black does not. Rounded corners and a camera
 * cut-out at the top left.
 */
export async function drawMask(width: number, height: number): Promise<Buffer> {
  const r = Math.round(width * 0.12);
  const cam = {
    x: Math.round(width * 0.07),
    y: Math.round(height * 0.04),
    w: Math.round(width * 0.36),
    h: Math.round(height * 0.2),
  };
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <rect width="100%" height="100%" fill="#000"/>
  <rect width="${width}" height="${height}" rx="${r}" fill="#fff"/>
  <rect x="${cam.x}" y="${cam.y}" width="${cam.w}" height="${cam.h}" rx="${Math.round(cam.w * 0.25)}" fill="#000"/>
</svg>`;
  return sharp(Buffer.from(svg)).greyscale().png().toBuffer();
}

/** Shading at the edges and a highlight along one side, transparent in the middle. */
export async function drawOverlay(width: number, height: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs>
    <linearGradient id="edge" x1="0" y1="0" x2="1" y2="0">
      <stop offset="0" stop-color="#000" stop-opacity="0.35"/><stop offset="0.12" stop-color="#000" stop-opacity="0"/>
      <stop offset="0.88" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.35"/>
    </linearGradient>
    <linearGradient id="shine" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#fff" stop-opacity="0.45"/><stop offset="0.25" stop-color="#fff" stop-opacity="0"/>
    </linearGradient>
  </defs>
  <rect width="100%" height="100%" fill="url(#edge)"/>
  <rect width="100%" height="100%" fill="url(#shine)"/>
</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** A complete template for a background of `size` with the case at `area`. */
export async function drawTemplate(size: { width: number; height: number }, area: PrintArea, style: SceneStyle) {
  return {
    background: await drawBackground(size.width, size.height, area, style),
    mask: await drawMask(area.width, area.height),
    overlay: await drawOverlay(area.width, area.height),
  };
}
