import { type CaseOutline, outlinePaths } from '../catalog/geometry.ts';
import type { PrinterConfig, SlotConfig } from './floor-config.ts';
import { MM } from './ink.ts';
import { addSrgbOutputIntent, finish, newDocument } from './pdf.ts';
import { CUT_SPOT, type PrintSpecIn, artworkWithBleed, overprint } from './print-file.ts';

/** One case on the bed: its pocket, its artwork and print area, its cut line. */
export interface BedCase {
  slot: SlotConfig;
  artwork: Buffer;
  spec: PrintSpecIn;
  outline: CaseOutline | null;
}

/** Registration marks sit this far in from each corner of the bed (mm). */
export const MARK_INSET_MM = 6;
const MARK_RADIUS_MM = 1.5;
const MARK_ARM_MM = 4;

/** A registration target: a filled dot in a ring with a cross, in black on every plate's reading. */
function registrationMark(doc: PDFKit.PDFDocument, xMm: number, yMm: number): void {
  const x = xMm * MM;
  const y = yMm * MM;
  doc.save().lineWidth(0.5).strokeColor('black').fillColor('black');
  doc.circle(x, y, MARK_RADIUS_MM * MM).fill();
  doc.circle(x, y, MARK_RADIUS_MM * 2 * MM).stroke();
  doc
    .moveTo(x - MARK_ARM_MM * MM, y)
    .lineTo(x + MARK_ARM_MM * MM, y)
    .moveTo(x, y - MARK_ARM_MM * MM)
    .lineTo(x, y + MARK_ARM_MM * MM)
    .stroke();
  doc.restore();
}

/**
 * The batch's print file: one page the size of the printer's bed at 1:1, each case's artwork
 * centred in its pocket and turned as the jig holds the case, with `bleedMm` of artwork beyond the
 * cut line; the cut lines in the `CutContour` spot colour, overprinting; registration marks in the
 * bed's corners. RGB, declared sRGB by an OutputIntent with the profile embedded.
 */
export async function buildBatchPrintFile(input: {
  printer: PrinterConfig;
  cases: BedCase[];
  bleedMm: number;
  title: string;
  at: Date;
}): Promise<{ pdf: Buffer; images: Array<{ slot: string; widthPx: number; heightPx: number; dpi: number }> }> {
  const { printer, bleedMm } = input;
  const doc = newDocument({
    size: [printer.bedWidthMm * MM, printer.bedHeightMm * MM],
    title: input.title,
    at: input.at,
  });
  addSrgbOutputIntent(doc);
  (doc as unknown as { addSpotColor(n: string, c: number, m: number, y: number, k: number): void }).addSpotColor(
    CUT_SPOT,
    0,
    100,
    0,
    0,
  );
  // The artworks are resized in parallel (sharp's own threads), then drawn in slot order.
  const pixels = await Promise.all(input.cases.map((c) => artworkWithBleed(c.artwork, c.spec, bleedMm)));
  const images: Array<{ slot: string; widthPx: number; heightPx: number; dpi: number }> = [];
  input.cases.forEach((c, i) => {
    const { slot, spec } = c;
    const w = spec.widthMm * MM;
    const h = spec.heightMm * MM;
    const b = bleedMm * MM;
    doc.save();
    // Origin at the pocket's centre, turned as the case lies in it: the case is drawn upright there.
    doc.translate((slot.xMm + slot.widthMm / 2) * MM, (slot.yMm + slot.heightMm / 2) * MM);
    if (slot.rotation) doc.rotate(slot.rotation);
    doc.translate(-w / 2, -h / 2);
    doc.image(pixels[i].jpeg, -b, -b, { width: w + 2 * b, height: h + 2 * b });
    doc.save();
    overprint(doc);
    doc.lineWidth(0.25).strokeColor(CUT_SPOT);
    if (c.outline) {
      const { body, hole } = outlinePaths(c.outline, MM);
      doc.path(body).stroke();
      doc.save();
      doc.path(body).clip();
      doc.path(hole).stroke();
      doc.restore();
    } else doc.rect(0, 0, w, h).stroke();
    doc.restore();
    doc.restore();
    images.push({
      slot: slot.id,
      widthPx: spec.widthPx + 2 * pixels[i].bleedPx,
      heightPx: spec.heightPx + 2 * pixels[i].bleedPx,
      dpi: spec.dpi,
    });
  });
  const i = MARK_INSET_MM;
  for (const [x, y] of [
    [i, i],
    [printer.bedWidthMm - i, i],
    [i, printer.bedHeightMm - i],
    [printer.bedWidthMm - i, printer.bedHeightMm - i],
  ])
    registrationMark(doc, x, y);
  return { pdf: await finish(doc), images };
}
