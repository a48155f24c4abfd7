import sharp from 'sharp';
import { type PrintFit, artworkBox, artworkOnRaster, placeArtwork } from '../catalog/artwork-fit.ts';
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
  /**
   * The product's bleed (catalog `printFit`): the artwork beyond the print area its case shows on
   * the rounded edge and side. The fit rule covers the print area and this; 0 when not given.
   */
  artworkBleedMm?: number;
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
 * The artwork as printed with bleed: placed by the fit rule (catalog/artwork-fit.ts: covering the
 * print area and the product's own bleed, `spec.artworkBleedMm`), exactly where every mockup places
 * it, then cut to the print area and `bleedMm` more on every side. The page's bleed is the artwork's
 * own continuation; only where a floor's bleed is wider than the product's (a clear case, printed on
 * its flat back) do the artwork's edge pixels continue, in a strip no case shows.
 */
export async function artworkWithBleed(artwork: Buffer, spec: PrintSpecIn, bleedMm: number) {
  const meta = await sharp(artwork).metadata();
  const turned = (meta.orientation ?? 1) >= 5;
  const artW = (turned ? meta.height : meta.width) ?? 0;
  const artH = (turned ? meta.width : meta.height) ?? 0;
  if (!artW || !artH) throw new Error('the artwork has no size');
  const bleedPx = Math.round((bleedMm / 25.4) * spec.dpi);
  const page = { width: spec.widthPx + 2 * bleedPx, height: spec.heightPx + 2 * bleedPx };
  const pxPerMm: [number, number] = [spec.widthPx / spec.widthMm, spec.heightPx / spec.heightMm];
  const art = artworkOnRaster({ width: artW, height: artH }, printFitOf(spec), pxPerMm, [
    -bleedPx / pxPerMm[0],
    -bleedPx / pxPerMm[1],
  ]);
  const placed = await placeArtwork(sharp(artwork).rotate().ensureAlpha(), { ...page, art });
  const { data, info } = await placed.raw().toBuffer({ resolveWithObject: true });
  // Transparent parts (and around a whole-fitted banner) print nothing: white on the page.
  const jpeg = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 95, chromaSubsampling: '4:4:4' })
    .withMetadata({ density: spec.dpi })
    .toBuffer();
  return { jpeg, bleedPx, artW, artH };
}

const printFitOf = (spec: PrintSpecIn): PrintFit => ({
  widthMm: spec.widthMm,
  heightMm: spec.heightMm,
  bleedMm: spec.artworkBleedMm ?? 0,
});

/** The artwork's own resolution on the print: the print dpi over how much the fit rule enlarged it. */
export function effectiveDpi(spec: PrintSpecIn, width: number, height: number): number {
  if (!width || !height) return 0;
  const box = artworkBox({ width, height }, printFitOf(spec));
  return Math.round(spec.dpi / ((box.widthMm / spec.widthMm) * (spec.widthPx / width)));
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
