import sharp from 'sharp';
import { type CaseOutline, outlinePaths } from '../catalog/geometry.ts';
import { MM } from './ink.ts';
import { addSrgbOutputIntent, finish, newDocument } from './pdf.ts';

/** The spot colour RIP software (VersaWorks, Caldera, Onyx) cuts along instead of printing. */
export const CUT_SPOT = 'CutContour';

export interface PrintSpecIn {
  widthMm: number;
  heightMm: number;
  widthPx: number;
  heightPx: number;
  dpi: number;
}

/** What a print file holds, kept with it so operators (and tests) can check it without opening it. */
export interface PrintFileDetails {
  widthMm: number;
  heightMm: number;
  widthPx: number;
  heightPx: number;
  dpi: number;
  /** Artwork beyond the cut line on every side; the page is this much larger than the print area all round. */
  bleedMm: number;
  /** `outline`: the case's shell and camera hole from the device geometry; `rectangle`: the print area's edge. */
  cutLine: 'outline' | 'rectangle';
  artwork: { width: number; height: number };
  /**
   * The artwork's own resolution on the print: the print dpi divided by how much cover-fitting
   * enlarged it. Under about 150 a print looks soft; the console warns.
   */
  effectiveDpi: number;
}

/**
 * The artwork as printed with bleed: cover-fitted to the print area exactly as the per-line file
 * and the mockups fit it (same scale, same centre), then `bleedMm` more on every side, taken from
 * the artwork where the crop left some and continued from its edge pixels where it did not.
 */
export async function artworkWithBleed(artwork: Buffer, spec: PrintSpecIn, bleedMm: number) {
  const meta = await sharp(artwork).metadata();
  const turned = (meta.orientation ?? 1) >= 5;
  const artW = (turned ? meta.height : meta.width) ?? 0;
  const artH = (turned ? meta.width : meta.height) ?? 0;
  if (!artW || !artH) throw new Error('the artwork has no size');
  const bleedPx = Math.round((bleedMm / 25.4) * spec.dpi);
  const scale = Math.max(spec.widthPx / artW, spec.heightPx / artH);
  const rw = Math.max(spec.widthPx, Math.round(artW * scale));
  const rh = Math.max(spec.heightPx, Math.round(artH * scale));
  const { data, info } = await sharp(artwork)
    .rotate()
    .resize(rw, rh, { fit: 'fill' })
    .flatten({ background: '#ffffff' })
    .extend({ top: bleedPx, bottom: bleedPx, left: bleedPx, right: bleedPx, extendWith: 'copy' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const jpeg = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .extract({
      left: Math.floor((rw - spec.widthPx) / 2),
      top: Math.floor((rh - spec.heightPx) / 2),
      width: spec.widthPx + 2 * bleedPx,
      height: spec.heightPx + 2 * bleedPx,
    })
    .jpeg({ quality: 95, chromaSubsampling: '4:4:4' })
    .withMetadata({ density: spec.dpi })
    .toBuffer();
  return { jpeg, bleedPx, artW, artH };
}

export function effectiveDpi(spec: PrintSpecIn, width: number, height: number): number {
  if (!width || !height) return 0;
  const scale = Math.max(spec.widthPx / width, spec.heightPx / height);
  return Math.round(spec.dpi / scale);
}

/**
 * The cut line overprints: a RIP that does print the spot plate leaves the artwork under the line
 * intact instead of knocking a white hairline out of it. pdfkit has no API for it; this is the
 * graphics-state entry its own `opacity` writes, with overprint instead.
 */
export function overprint(doc: PDFKit.PDFDocument): void {
  const d = doc as unknown as {
    ref(o: object): { end(): void };
    page: { ext_gstates: Record<string, unknown> };
    addContent(s: string): void;
  };
  const gs = d.ref({ Type: 'ExtGState', OP: true, op: true, OPM: 1 });
  gs.end();
  d.page.ext_gstates.GsOverprint = gs;
  d.addContent('/GsOverprint gs');
}

/**
 * The print-ready PDF of one order line: a page the size of the print area holding the artwork,
 * cover-fitted and centred at exactly the print resolution (one image pixel per printer pixel), and
 * the cut line as a vector path in the `CutContour` spot colour above it.
 */
export async function buildPrintFile(input: {
  artwork: Buffer;
  spec: PrintSpecIn;
  outline: CaseOutline | null;
  /** Artwork beyond the cut line on every side (the floor file's `bleedMm`). */
  bleedMm: number;
  title: string;
  at: Date;
}): Promise<{ pdf: Buffer; details: PrintFileDetails }> {
  const { spec, bleedMm } = input;
  const { jpeg, artW, artH } = await artworkWithBleed(input.artwork, spec, bleedMm);
  const w = spec.widthMm * MM;
  const h = spec.heightMm * MM;
  const b = bleedMm * MM;
  const doc = newDocument({ size: [w + 2 * b, h + 2 * b], title: input.title, at: input.at });
  addSrgbOutputIntent(doc);
  // The trim box is the print area: the RIP and a preflight see where the bleed begins.
  (doc.page as unknown as { dictionary: { data: Record<string, unknown> } }).dictionary.data.TrimBox = [
    b,
    b,
    b + w,
    b + h,
  ];
  doc.image(jpeg, 0, 0, { width: w + 2 * b, height: h + 2 * b });

  // pdfkit has spot colours (0.15+), its type definitions not yet.
  (doc as unknown as { addSpotColor(n: string, c: number, m: number, y: number, k: number): void }).addSpotColor(
    CUT_SPOT,
    0,
    100,
    0,
    0,
  );
  doc.save();
  doc.translate(b, b);
  overprint(doc);
  doc.lineWidth(0.25).strokeColor(CUT_SPOT);
  if (input.outline) {
    const { body, hole } = outlinePaths(input.outline, MM);
    doc.path(body).stroke();
    // A camera bar running off the edge opens the shell there: the hole is cut inside the body only.
    doc.save();
    doc.path(body).clip();
    doc.path(hole).stroke();
    doc.restore();
  } else {
    doc.rect(0, 0, w, h).stroke();
  }
  doc.restore();
  return {
    pdf: await finish(doc),
    details: {
      widthMm: spec.widthMm,
      heightMm: spec.heightMm,
      widthPx: spec.widthPx,
      heightPx: spec.heightPx,
      dpi: spec.dpi,
      bleedMm,
      cutLine: input.outline ? 'outline' : 'rectangle',
      artwork: { width: artW, height: artH },
      effectiveDpi: effectiveDpi(spec, artW, artH),
    },
  };
}
