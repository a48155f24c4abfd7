import { textBox } from '../../platform/pdf-text.ts';
import { drawBarcode } from './documents.ts';
import type { PrinterConfig, SlotConfig } from './floor-config.ts';
import { MM } from './ink.ts';
import { code128Svg, finish, newDocument } from './pdf.ts';

/** What the pick list and the batch sheet say of a batch. */
export interface BatchSheetInput {
  reference: string;
  printer: PrinterConfig;
  jigName: string;
  caseType: string;
  created: Date;
  /** Every pocket of the jig: the empty ones are drawn too, so the loader knows to leave them. */
  jigSlots: SlotConfig[];
  slots: Array<{
    slot: SlotConfig;
    sku: string;
    bin: string | null;
    product: string;
    /** `Order_… line 2, case 1 of 3` */
    unit: string;
    orderCode: string;
    remake: string | null;
    /** The case's unit reference: its Code 128 is what the QC and pack stations scan. */
    unitId: string;
  }>;
}

const A4: [number, number] = [210 * MM, 297 * MM];
const M = 15 * MM;
const INNER = A4[0] - 2 * M;
const when = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

function header(doc: PDFKit.PDFDocument, title: string, b: BatchSheetInput): number {
  textBox(doc, title, { x: M, y: M, width: INNER, size: 22, font: 'Helvetica-Bold', color: '#000' });
  textBox(
    doc,
    `${b.reference}  ·  ${b.jigName} on ${b.printer.name}  ·  ${b.caseType}  ·  ${b.slots.length} cases  ·  made ${when(b.created)} UTC`,
    { x: M, y: M + 30, width: INNER, size: 9, color: '#333', maxLines: 2 },
  );
  return M + 58;
}

/** A table row: cells at the given column widths (fractions of the page's inner width). */
function row(doc: PDFKit.PDFDocument, y: number, cells: string[], cols: number[], bold = false): number {
  let x = M;
  let h = 0;
  cells.forEach((c, i) => {
    const w = cols[i] * INNER;
    const laid = textBox(doc, c, {
      x: x + 2,
      y: y + 4,
      width: w - 4,
      size: bold ? 9 : 10,
      font: bold ? 'Helvetica-Bold' : 'Helvetica',
      color: '#000',
      maxLines: 2,
    });
    h = Math.max(h, laid.height + 8);
    x += w;
  });
  doc
    .save()
    .lineWidth(0.5)
    .strokeColor('#999')
    .moveTo(M, y + h)
    .lineTo(M + INNER, y + h)
    .stroke()
    .restore();
  return y + h;
}

/**
 * The pick list: first what to take from each bin (SKU, bin, how many), then slot by slot which
 * blank goes where, for which order. A remake says so, so the picker knows it is a second try.
 */
export async function buildPickList(b: BatchSheetInput, at: Date): Promise<Buffer> {
  const doc = newDocument({ size: A4, title: `Pick list ${b.reference}`, at });
  let y = header(doc, 'Pick list', b);
  const bins = new Map<string, { sku: string; bin: string; n: number }>();
  for (const s of b.slots) {
    const k = `${s.bin ?? ''}\u0000${s.sku}`;
    const e = bins.get(k) ?? { sku: s.sku, bin: s.bin ?? 'not in the floor file: ask the stock room', n: 0 };
    e.n++;
    bins.set(k, e);
  }
  const take = [0.2, 0.45, 0.35];
  y = row(doc, y, ['Take', 'Blank (SKU)', 'From bin'], take, true);
  for (const e of [...bins.values()].sort((p, q) => p.bin.localeCompare(q.bin) || p.sku.localeCompare(q.sku)))
    y = row(doc, y, [`${e.n} ×`, e.sku, e.bin], take);
  y += 18;
  const cols = [0.08, 0.2, 0.13, 0.25, 0.34];
  y = row(doc, y, ['Slot', 'Blank (SKU)', 'Bin', 'Product', 'For'], cols, true);
  for (const s of b.slots) {
    if (y > A4[1] - M - 30) {
      doc.addPage({ size: A4, margin: 0 });
      y = row(doc, M, ['Slot', 'Blank (SKU)', 'Bin', 'Product', 'For'], cols, true);
    }
    y = row(
      doc,
      y,
      [
        s.slot.id,
        s.sku,
        s.bin ?? '—',
        s.product,
        `${s.orderCode}: ${s.unit}${s.remake ? ` (remake: ${s.remake})` : ''}`,
      ],
      cols,
    );
  }
  return finish(doc);
}

/**
 * The batch sheet travels with the jig: a Code 128 barcode of the batch reference (the print
 * station scans it), and a map of the bed with each slot's order, so the jig is loaded and
 * unloaded the right way round.
 */
export async function buildBatchSheet(b: BatchSheetInput, at: Date): Promise<Buffer> {
  const doc = newDocument({ size: A4, title: `Batch sheet ${b.reference}`, at });
  let y = header(doc, 'Batch sheet', b);
  drawBarcode(doc, code128Svg(b.reference), M, y, INNER, 28 * MM);
  y += 28 * MM + 6;
  textBox(doc, b.reference, { x: M, y, width: INNER, size: 14, font: 'Courier-Bold', color: '#000', align: 'center' });
  y += 30;
  // The bed to scale, slots drawn turned as the cases lie, each with its slot id and order.
  const scale = INNER / b.printer.bedWidthMm;
  const bedH = b.printer.bedHeightMm * scale;
  doc.save().lineWidth(1).strokeColor('#000').rect(M, y, INNER, bedH).stroke().restore();
  const used = new Set(b.slots.map((s) => s.slot.id));
  for (const e of b.jigSlots.filter((s) => !used.has(s.id))) {
    const [x, sy] = [M + e.xMm * scale, y + e.yMm * scale];
    doc
      .save()
      .lineWidth(0.5)
      .dash(3, { space: 3 })
      .strokeColor('#aaa')
      .rect(x, sy, e.widthMm * scale, e.heightMm * scale);
    doc.stroke().undash().restore();
    textBox(doc, `${e.id} empty`, { x: x + 3, y: sy + 3, width: e.widthMm * scale - 6, size: 8, color: '#999' });
  }
  for (const s of b.slots) {
    const x = M + s.slot.xMm * scale;
    const sy = y + s.slot.yMm * scale;
    const w = s.slot.widthMm * scale;
    const h = s.slot.heightMm * scale;
    doc.save().lineWidth(0.75).fillColor('#eeeeee').strokeColor('#333').rect(x, sy, w, h).fillAndStroke().restore();
    textBox(doc, s.slot.id, { x: x + 3, y: sy + 3, width: w - 6, size: 11, font: 'Helvetica-Bold', color: '#000' });
    textBox(doc, [s.orderCode, s.unit, `top ${arrow(s.slot.rotation)}`], {
      x: x + 3,
      y: sy + 17,
      width: w - 6,
      height: h - 20,
      size: 7,
      minSize: 5,
      color: '#000',
    });
  }
  textBox(
    doc,
    `Bed ${b.printer.bedWidthMm} × ${b.printer.bedHeightMm} mm, seen from above, front edge at the bottom.`,
    {
      x: M,
      y: y + bedH + 6,
      width: INNER,
      size: 8,
      color: '#555',
    },
  );
  caseCodes(doc, b);
  return finish(doc);
}

/**
 * Pages of case codes, one Code 128 per slot in slot order: a case taken from the jig is scanned
 * by its slot's code at QC and at packing.
 */
function caseCodes(doc: PDFKit.PDFDocument, b: BatchSheetInput): void {
  const ROW = 24 * MM;
  let y = A4[1];
  for (const s of b.slots) {
    if (y + ROW > A4[1] - M) {
      doc.addPage({ size: A4, margin: 0 });
      textBox(doc, `Case codes · ${b.reference}`, {
        x: M,
        y: M,
        width: INNER,
        size: 14,
        font: 'Helvetica-Bold',
        color: '#000',
      });
      y = M + 26;
    }
    textBox(doc, `${s.slot.id}  ·  ${s.orderCode}  ·  ${s.product}  ·  ${s.unit}`, {
      x: M,
      y,
      width: INNER,
      size: 9,
      font: 'Helvetica-Bold',
      color: '#000',
      maxLines: 1,
    });
    drawBarcode(doc, code128Svg(s.unitId), M, y + 13, INNER * 0.8, 12 * MM);
    textBox(doc, s.unitId, { x: M, y: y + 13 + 12 * MM + 2, width: INNER, size: 8, font: 'Courier', color: '#000' });
    y += ROW;
  }
}

/** Where the case's top points on the bed. */
const arrow = (rotation: number) => ({ 0: '↑', 90: '→', 180: '↓', 270: '←' })[rotation] ?? '↑';
