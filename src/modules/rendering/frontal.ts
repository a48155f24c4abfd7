import sharp from 'sharp';
import type { CaseType } from '../catalog/casetypes.ts';
import type { DeviceGeometry } from '../catalog/devices.ts';
import { CLEAR_RIM, type CaseOutline, caseOutline, caseProfile, outlinePaths } from '../catalog/geometry.ts';
import { materialFor, phoneColour } from './materials.ts';
import type { DrawnTemplate } from './renderer.ts';
import { runFrontal, sharedBytes, sharedCopy } from './pixel-threads.ts';
import { rgbPng, uv16Png } from './templates.ts';

/**
 * The straight-on product perspective of one case, drawn from the device's geometry: the back fills
 * 80 % of a square canvas, the phone's own camera island shows through the case's cut-out, the
 * shell's edge is shaded like a rounded rim, leather and wallet shells get their stitching and a
 * tough shell its raised lip.
 * Deterministic: the same device and case type give the same bytes (the blob cache relies on it).
 */
/** Long edge of a generated template unless the output is larger. */
export const FRONTAL_EDGE = 1000;
/** Bump when the drawing changes: generated assets are stored under a key that includes it. */
export const FRONTAL_VERSION = 3;

const f = (x: number) => Number(x.toFixed(2));

export async function frontalTemplate(
  device: DeviceGeometry,
  caseType: CaseType,
  size: { width: number; height: number },
): Promise<DrawnTemplate> {
  const W = size.width;
  const H = size.height;
  const o = caseOutline(device, caseType);
  const k = Math.min((0.8 * H) / o.heightMm, (0.8 * W) / o.widthMm); // px per mm
  const bw = o.widthMm * k;
  const bh = o.heightMm * k;
  const x0 = f((W - bw) / 2);
  const y0 = f((H - bh) / 2);
  const { body, hole } = outlinePaths(o, k);
  const phone = phoneColour(device);
  const material = materialFor(caseType, phone);
  const svg = (inner: string, bg = '#000') =>
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="100%" height="100%" fill="${bg}"/><g transform="translate(${x0} ${y0})">${inner}</g></svg>`,
    );
  const grey = (b: Buffer) => sharp(b).greyscale().extractChannel(0).raw().toBuffer();

  // A clear shell is printed on its flat back only (as on the stages): its rounded rim stays clear
  // and shows the phone's side through it, drawn into the background.
  const clearRim = caseType.material.transparency >= CLEAR_RIM ? caseProfile(device, caseType).edgeMm * k : 0;
  const printed = clearRim ? outlinePaths(o, k, clearRim).body : body;
  // Mask: the printed back without the camera cut-out.
  const maskSvg = svg(
    `<defs><clipPath id="b"><path d="${printed}"/></clipPath></defs><path clip-path="url(#b)" fill-rule="evenodd" fill="#fff" d="${printed} ${hole}"/>`,
  );
  const mask = await grey(maskSvg);
  // Shading: the rim rolls away from the light (a blurred mask), the light falls from the top left,
  // and a stitched shell has its seam pressed in.
  const rim = await sharp(maskSvg)
    .blur(Math.max(1, 1.6 * k))
    .greyscale()
    .extractChannel(0)
    .raw()
    .toBuffer();
  const stitched = caseType.material.finish === 'leather' || caseType.material.book;
  const seam = stitched ? outlinePaths(o, k, 2.6 * k).body : '';
  const pressed = stitched
    ? await grey(
        svg(
          `<path d="${seam}" fill="none" stroke="#fff" stroke-width="${f(0.45 * k)}" stroke-dasharray="${f(1.6 * k)} ${f(1 * k)}"/>`,
        ),
      )
    : caseType.key === 'tough'
      ? await grey(svg(lipSvg(o, k, caseProfile(device, caseType).edgeMm)))
      : null;
  // Highlight: a soft diagonal sheen and a bright top-left rim.
  const shine = await grey(
    svg(
      `<defs><clipPath id="b"><path d="${body}"/></clipPath><linearGradient id="s" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0" stop-color="#fff" stop-opacity="0.05"/><stop offset="0.22" stop-color="#fff" stop-opacity="0.55"/>
        <stop offset="0.36" stop-color="#fff" stop-opacity="0.05"/><stop offset="0.7" stop-color="#fff" stop-opacity="0"/>
        <stop offset="0.86" stop-color="#fff" stop-opacity="0.18"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></linearGradient>
        <filter id="g"><feGaussianBlur stdDeviation="${f(0.5 * k)}"/></filter></defs>
      <g clip-path="url(#b)"><rect width="${f(bw)}" height="${f(bh)}" fill="url(#s)"/>
      <path d="${body}" transform="translate(${f(0.7 * k)} ${f(0.7 * k)})" fill="none" stroke="#fff" stroke-opacity="0.8" stroke-width="${f(0.9 * k)}" filter="url(#g)"/></g>`,
    ),
  );
  const layers = sharedBytes(W * H * 3);
  const uv = new Uint16Array(new SharedArrayBuffer(W * H * 6));
  await runFrontal({
    width: W,
    height: H,
    x0,
    y0,
    bw,
    bh,
    mask: sharedCopy(mask),
    rim: sharedCopy(rim),
    seam: pressed && sharedCopy(pressed),
    shine: sharedCopy(shine),
    layers,
    uv,
  });
  return {
    background: await background(device, caseType, { W, H, k, x0, y0, body, hole, phone, clearRim }),
    uv: await uv16Png(W, H, uv),
    layers: await rgbPng(W, H, layers),
    material,
    backMm: [o.widthMm, o.heightMm],
  };
}

/**
 * A tough shell's raised lip, as the stages draw it: a band 1.4 mm wide just inside the rounded edge
 * (`edgeMm` in from the outline), its inner slope in shadow, darkest at its foot, fading toward the
 * crest. Drawn as the kernel's pressed-in layer (white darkens the shading by up to 35 %).
 */
function lipSvg(o: CaseOutline, k: number, edgeMm: number): string {
  const band = (insetMm: number, opacity: number) =>
    `<path d="${outlinePaths(o, k, insetMm * k).body}" fill="none" stroke="#fff" stroke-opacity="${opacity}" stroke-width="${f(0.5 * k)}"/>`;
  return `<defs><filter id="lip"><feGaussianBlur stdDeviation="${f(0.2 * k)}"/></filter></defs><g filter="url(#lip)">${band(edgeMm + 1.15, 0.62)}${band(edgeMm + 0.7, 0.4)}${band(edgeMm + 0.25, 0.18)}</g>`;
}

/** Backdrop, the case's soft shadow, its rim, and the phone's camera island inside the cut-out. */
async function background(
  device: DeviceGeometry,
  caseType: CaseType,
  g: {
    W: number;
    H: number;
    k: number;
    x0: number;
    y0: number;
    body: string;
    hole: string;
    phone: string;
    clearRim: number;
  },
): Promise<Buffer> {
  const { W, H, k } = g;
  const S = Math.max(W, H);
  const c = device.camera;
  const ix = (caseType.wallMm + c.xMm) * k;
  const iy = (caseType.wallMm + c.yMm) * k;
  const lenses = c.lenses
    .map((l) => {
      const cx = f(ix + l.xMm * k);
      const cy = f(iy + l.yMm * k);
      const r = (l.diameterMm / 2) * k;
      return `<circle cx="${cx}" cy="${cy}" r="${f(r)}" fill="#2b2e33"/>
        <circle cx="${cx}" cy="${cy}" r="${f(r * 0.72)}" fill="#0b0c10" stroke="#3b4250" stroke-width="${f(r * 0.08)}"/>
        <circle cx="${cx}" cy="${cy}" r="${f(r * 0.42)}" fill="#141a2a"/>
        <circle cx="${f(cx - r * 0.25)}" cy="${f(cy - r * 0.28)}" r="${f(r * 0.12)}" fill="#fff" fill-opacity="0.55"/>`;
    })
    .join('');
  const island =
    c.shape === 'circle'
      ? `<circle cx="${f(ix + (c.widthMm / 2) * k)}" cy="${f(iy + (c.heightMm / 2) * k)}" r="${f((c.widthMm / 2) * k)}"`
      : `<rect x="${f(ix)}" y="${f(iy)}" width="${f(c.widthMm * k)}" height="${f(c.heightMm * k)}" rx="${f(c.cornerRadiusMm * k)}"`;
  const m = caseType.material;
  // The rim is the side wall seen edge-on: the colourway's bezel where it names one.
  const rim = g.clearRim ? g.phone : m.finish === 'clear' ? '#c9d3da' : (m.bezelHex ?? m.baseHex);
  // A camera rim in a colour of its own: a band 0.9 mm wide inside the cut-out's outline (the
  // cut-out's wall, as the stages draw it), lit from the top left.
  const cameraRing = m.cameraRingHex
    ? `<path d="${g.hole}" fill="none" stroke="${m.cameraRingHex}" stroke-width="${f(1.8 * k)}"/>
      <path d="${g.hole}" fill="none" stroke="#000" stroke-opacity="0.3" stroke-width="${f(0.4 * k)}" filter="url(#tight)"/>`
    : '';
  // Through a clear rim: the phone's side in its own colour, darkening as it rolls away, the phone's
  // edge where the case wall ends, and the shell's gloss along the top left and its bright outer lip.
  const clear = g.clearRim
    ? `<g clip-path="url(#body)">
      <path d="${g.body}" fill="none" stroke="#000" stroke-opacity="0.32" stroke-width="${f(g.clearRim * 0.9)}" filter="url(#tight)"/>
      <path d="${outlinePaths(caseOutline(device, caseType), k, caseType.wallMm * k).body}" fill="none" stroke="#000" stroke-opacity="0.28" stroke-width="${f(0.35 * k)}"/>
      <path d="${g.body}" transform="translate(${f(0.5 * k)} ${f(0.5 * k)})" fill="none" stroke="#fff" stroke-opacity="0.55" stroke-width="${f(0.8 * k)}" filter="url(#tight)"/>
      <path d="${g.body}" fill="none" stroke="#f4f8fb" stroke-opacity="0.7" stroke-width="${f(0.5 * k)}"/>
    </g>`
    : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f3f4f6"/><stop offset="1" stop-color="#dfe2e7"/></linearGradient>
    <filter id="soft" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="${f(4 * k)}"/></filter>
    <filter id="tight"><feGaussianBlur stdDeviation="${f(0.8 * k)}"/></filter>
    <clipPath id="h"><path d="${g.hole}"/></clipPath>
    <clipPath id="body"><path d="${g.body}"/></clipPath>
  </defs>
  <rect width="100%" height="100%" fill="url(#bg)"/>
  <g transform="translate(${g.x0} ${g.y0})">
    <path d="${g.body}" transform="translate(${f(2 * k)} ${f(5 * k)})" fill="#000" fill-opacity="0.28" filter="url(#soft)"/>
    <path d="${g.body}" transform="translate(${f(0.3 * k)} ${f(0.8 * k)})" fill="#000" fill-opacity="0.35" filter="url(#tight)"/>
    <path d="${g.body}" fill="${rim}"/>
    ${clear}
    <g clip-path="url(#h)">
      <rect width="${S}" height="${S}" fill="${g.phone}"/>
      ${island} fill="${g.phone}" stroke="#000" stroke-opacity="0.25" stroke-width="${f(0.5 * k)}"/>
      ${lenses}
      <path d="${g.hole}" fill="none" stroke="#000" stroke-opacity="0.45" stroke-width="${f(1.4 * k)}" filter="url(#tight)"/>
      ${cameraRing}
    </g>
  </g>
</svg>`;
  return sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).png({ compressionLevel: 6 }).toBuffer();
}
