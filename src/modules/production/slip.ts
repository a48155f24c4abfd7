import {
  type ShipmentDocInput,
  addressLines,
  barcodeValue,
  brandBand,
  contactLine,
  drawBarcode,
  returnLines,
} from './documents.ts';
import { drawLaid, fitLines, layoutText, textBox } from '../../platform/pdf-text.ts';
import { MM, inkOn } from './ink.ts';
import { code128Svg, finish, newDocument } from './pdf.ts';

/**
 * The A4 packing slip in the parcel: the brand's head, where it goes and where returns go, what is
 * in it (no prices: the parcel is the partner's, sent in its name) and how to reach the brand.
 */
export async function buildPackingSlip(input: ShipmentDocInput, at: Date): Promise<Buffer> {
  const W = 210 * MM;
  const H = 297 * MM;
  const m = 16 * MM;
  const inner = W - 2 * m;
  const doc = newDocument({
    size: [W, H],
    title: `Packing slip ${input.shipment.reference}`,
    at,
    countryCode: input.destination.countryCode,
  });
  const { brand } = input;

  brandBand(doc, input, 0, 0, W, 26 * MM);

  // Customer service at the foot of the first page, where a customer looks for it; the contents stay above it.
  const fy2 = H - 30 * MM;
  doc.rect(0, fy2, W, 30 * MM).fill(brand.secondaryColor);
  const ink = inkOn(brand.secondaryColor);
  const thanks = textBox(doc, `Thank you for shopping with ${brand.name}`, {
    x: m,
    y: fy2 + 6 * MM,
    width: inner,
    size: 11,
    minSize: 9,
    maxLines: 1,
    font: 'Helvetica-Bold',
    color: ink,
  });
  const contact = contactLine(input);
  const askY = fy2 + 6 * MM + thanks.height + 2 * MM;
  textBox(
    doc,
    contact
      ? `Questions about your order? Contact ${brand.name}: ${contact}`
      : `Questions about your order? Contact ${brand.name}.`,
    { x: m, y: askY, width: inner, height: H - 4 * MM - askY, size: 9, minSize: 7, color: ink },
  );

  let y = 34 * MM;
  textBox(doc, 'Packing slip', { x: m, y, width: inner * 0.55, size: 20, font: 'Helvetica-Bold', color: '#000' });
  const facts: Array<[string, string]> = [
    ['Shipment', input.shipment.reference],
    ['Shipped', input.shipment.shippedAt.toISOString().slice(0, 10)],
    ['Orders', input.orders.map((o) => o.code + (o.customIdentifier ? ` (${o.customIdentifier})` : '')).join(', ')],
    ['Service', `${input.shipment.level}${input.shipment.carrier ? `, ${input.shipment.carrier}` : ''}`],
  ];
  let fy = y + 28;
  for (const [k, v] of facts) {
    const fact = { y: fy, size: 9, color: '#333', maxLines: 3 };
    textBox(doc, k, { ...fact, x: m, width: 60, font: 'Helvetica-Bold' });
    fy += textBox(doc, v, { ...fact, x: m + 62, width: inner * 0.55 - 62 }).height + 2;
  }
  const code = barcodeValue(input);
  const bx = m + inner * 0.6;
  drawBarcode(doc, code128Svg(code.value), bx, y, inner * 0.4, 14 * MM);
  textBox(doc, code.value, {
    x: bx,
    y: y + 15 * MM,
    width: inner * 0.4,
    size: 9,
    maxLines: 1,
    font: 'Courier',
    align: 'center',
    color: '#000',
  });

  // Where it goes and where returns go, side by side; each column at most 55 mm tall.
  y = Math.max(fy, y + 24 * MM) + 8 * MM;
  const colW = inner / 2 - 10;
  const col = (title: string, lines: string[], x: number) => {
    const head = inkOn(brand.primaryColor) === '#ffffff' ? brand.primaryColor : '#000';
    textBox(doc, title.toUpperCase(), { x, y, width: colW, size: 8, font: 'Helvetica-Bold', color: head });
    const box = { x, y: y + 13, width: colW, size: 10, minSize: 8, color: '#000' };
    return y + 13 + textBox(doc, lines, { ...box, height: 55 * MM }).height;
  };
  const [sender, ...back] = returnLines(input);
  const end = Math.max(
    col('Ship to', addressLines(input.destination), m),
    col(
      'Returns',
      [...fitLines(doc, sender, { x: 0, y: 0, width: colW, size: 10, maxLines: 2 }), ...back],
      m + inner / 2,
    ),
  );

  contents(doc, input, end + 10 * MM);

  return finish(doc);
}

/**
 * The contents: one row per line, grouped by order, each cell cut to a few lines. The first page keeps
 * its foot for customer service; the next ones run to the margin and repeat the table head.
 */
function contents(doc: PDFKit.PDFDocument, input: ShipmentDocInput, top: number): void {
  const W = 210 * MM;
  const H = 297 * MM;
  const m = 16 * MM;
  const inner = W - 2 * m;
  const { secondaryColor } = input.brand;
  const cols = [
    { title: 'Qty', x: m, width: 14 * MM, align: 'right' as const, maxLines: 1 },
    { title: 'Item', x: m + 18 * MM, width: inner - 80 * MM, align: 'left' as const, maxLines: 3 },
    { title: 'SKU', x: m + inner - 60 * MM, width: 32 * MM, align: 'left' as const, maxLines: 2, minSize: 8 },
    { title: 'Order', x: m + inner - 26 * MM, width: 26 * MM, align: 'left' as const, maxLines: 3, minSize: 8 },
  ];
  let y = top;
  let bottom = H - 45 * MM;
  const headH = 7 * MM;
  const head = () => {
    doc.rect(m - 2 * MM, y, inner + 4 * MM, headH).fill(secondaryColor);
    const ink = inkOn(secondaryColor);
    for (const c of cols)
      textBox(doc, c.title, { ...c, y: y + 2.2 * MM, size: 9, font: 'Helvetica-Bold', color: ink, maxLines: 1 });
    y += headH + 2 * MM;
  };
  const room = (h: number) => {
    if (y + h <= bottom) return;
    doc.addPage({ size: [W, H], margin: 0 });
    y = m;
    bottom = H - m;
    head();
  };
  head();
  let units = 0;
  for (const o of input.orders) {
    for (const l of o.lines) {
      const cells = [String(l.quantity), l.name, l.sku, o.code];
      const laid = cols.map((c, i) => layoutText(doc, cells[i], { ...c, y, size: 10 }));
      const rowH = Math.max(...laid.map((t) => t.height)) + 2 * MM;
      room(rowH);
      for (const [i, c] of cols.entries()) drawLaid(doc, laid[i], { ...c, y, size: 10, color: '#000' });
      y += rowH;
      doc
        .save()
        .moveTo(m - 2 * MM, y - MM)
        .lineTo(m + inner + 2 * MM, y - MM)
        .lineWidth(0.5)
        .stroke('#cccccc')
        .restore();
      units += l.quantity;
    }
  }
  room(8 * MM);
  const count = `${units} item${units === 1 ? '' : 's'} in this parcel`;
  textBox(doc, count, { x: m, y: y + 2 * MM, width: inner, size: 10, font: 'Helvetica-Bold', color: '#000' });
}
