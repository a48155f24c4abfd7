import sharp from 'sharp';
import { type CaseOutline, outlinePaths } from '../catalog/geometry.ts';
import { MM } from './ink.ts';
import { finish, newDocument } from './pdf.ts';

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
  /** `outline`: the case's shell and camera hole from the device geometry; `rectangle`: the print area's edge. */
  cutLine: 'outline' | 'rectangle';
  artwork: { width: number; height: number };
  /**
   * The artwork's own resolution on the print: the print dpi divided by how much cover-fitting
   * enlarged it. Under about 150 a print looks soft; the console warns.
   */
  effectiveDpi: number;
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
  title: string;
  at: Date;
}): Promise<{ pdf: Buffer; details: PrintFileDetails }> {
  const { spec } = input;
  const meta = await sharp(input.artwork).metadata();
  // EXIF orientations 5-8 are quarter turns: the artwork is placed turned, its sides swapped.
  const [artW, artH] =
    (meta.orientation ?? 1) >= 5 ? [meta.height ?? 0, meta.width ?? 0] : [meta.width ?? 0, meta.height ?? 0];
  // Same fit as the mockups (rendering/renderer.ts): what the partner previewed is what is printed.
  const pixels = await sharp(input.artwork)
    .rotate()
    .resize(spec.widthPx, spec.heightPx, { fit: 'cover', position: 'centre' })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 95, chromaSubsampling: '4:4:4' })
    .withMetadata({ density: spec.dpi })
    .toBuffer();
  const w = spec.widthMm * MM;
  const h = spec.heightMm * MM;
  const doc = newDocument({ size: [w, h], title: input.title, at: input.at });
  doc.image(pixels, 0, 0, { width: w, height: h });

  // pdfkit has spot colours (0.15+), its type definitions not yet.
  (doc as unknown as { addSpotColor(n: string, c: number, m: number, y: number, k: number): void }).addSpotColor(
    CUT_SPOT,
    0,
    100,
    0,
    0,
  );
  doc.save();
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
      cutLine: input.outline ? 'outline' : 'rectangle',
      artwork: { width: artW, height: artH },
      effectiveDpi: effectiveDpi(spec, artW, artH),
    },
  };
}
