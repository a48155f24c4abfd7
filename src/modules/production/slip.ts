import {
  type ShipmentDocInput,
  addressLines,
  barcodeValue,
  brandBand,
  contactLine,
  drawBarcode,
  returnLines,
} from './documents.ts';
import { printable } from '../../platform/pdf-fonts.ts';
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
  const doc = newDocument({ size: [W, H], title: `Packing slip ${input.shipment.reference}`, at });
  const { brand } = input;

  brandBand(doc, input, 0, 0, W, 26 * MM);

  // Customer service at the foot of the first page, where a customer looks for it; the contents stay above it.
  const fy2 = H - 30 * MM;
  doc.rect(0, fy2, W, 30 * MM).fill(brand.secondaryColor);
  const ink = inkOn(brand.secondaryColor);
  doc
    .fillColor(ink)
    .font('Helvetica-Bold')
    .fontSize(11)
    .text(`Thank you for shopping with ${printable(brand.name)}`, m, fy2 + 7 * MM, { width: inner });
  const contact = contactLine(input);
  doc
    .font('Helvetica')
    .fontSize(9)
    .text(
      contact
        ? `Questions about your order? Contact ${printable(brand.name)}: ${contact}`
        : `Questions about your order? Contact ${printable(brand.name)}.`,
      m,
      fy2 + 14 * MM,
      { width: inner },
    );

  let y = 34 * MM;
  doc.fillColor('#000').font('Helvetica-Bold').fontSize(20).text('Packing slip', m, y);
  doc.font('Helvetica').fontSize(9).fillColor('#333');
  const facts: Array<[string, string]> = [
    ['Shipment', input.shipment.reference],
    ['Shipped', input.shipment.shippedAt.toISOString().slice(0, 10)],
    ['Orders', input.orders.map((o) => o.code + (o.customIdentifier ? ` (${o.customIdentifier})` : '')).join(', ')],
    ['Service', `${input.shipment.level}${input.shipment.carrier ? `, ${input.shipment.carrier}` : ''}`],
  ];
  let fy = y + 28;
  for (const [k, v] of facts) {
    doc.font('Helvetica-Bold').text(k, m, fy, { continued: false, width: 60 });
    doc.font('Helvetica').text(printable(v), m + 62, fy, { width: inner * 0.55 - 62 });
    fy = doc.y + 2;
  }
  const code = barcodeValue(input);
  const bx = m + inner * 0.6;
  drawBarcode(doc, code128Svg(code.value), bx, y, inner * 0.4, 14 * MM);
  doc
    .font('Courier')
    .fontSize(9)
    .fillColor('#000')
    .text(code.value, bx, y + 15 * MM, { width: inner * 0.4, align: 'center' });

  y = Math.max(fy, y + 24 * MM) + 8 * MM;
  const col = (title: string, lines: string[], x: number) => {
    doc
      .font('Helvetica-Bold')
      .fontSize(8)
      .fillColor(inkOn(brand.primaryColor) === '#ffffff' ? brand.primaryColor : '#000');
    doc.text(title.toUpperCase(), x, y);
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor('#000')
      .text(lines.join('\n'), x, y + 13, { width: inner / 2 - 10 });
    return doc.y;
  };
  const end = Math.max(
    col('Ship to', addressLines(input.destination), m),
    col('Returns', returnLines(input), m + inner / 2),
  );

  // The contents: one row per line, grouped by order.
  y = end + 10 * MM;
  const cols = [
    { title: 'Qty', x: m, w: 14 * MM, align: 'right' as const },
    { title: 'Item', x: m + 18 * MM, w: inner - 80 * MM, align: 'left' as const },
    { title: 'SKU', x: m + inner - 60 * MM, w: 32 * MM, align: 'left' as const },
    { title: 'Order', x: m + inner - 26 * MM, w: 26 * MM, align: 'left' as const },
  ];
  const headH = 7 * MM;
  const head = () => {
    doc.rect(m - 2 * MM, y, inner + 4 * MM, headH).fill(brand.secondaryColor);
    doc.font('Helvetica-Bold').fontSize(9).fillColor(inkOn(brand.secondaryColor));
    for (const c of cols) doc.text(c.title, c.x, y + 2.2 * MM, { width: c.w, align: c.align });
    y += headH + 2 * MM;
    doc.font('Helvetica').fontSize(10).fillColor('#000');
  };
  head();
  let units = 0;
  // The first page keeps its foot for customer service; the next ones run to the margin.
  let bottom = H - 45 * MM;
  for (const o of input.orders) {
    for (const l of o.lines) {
      const cells = [String(l.quantity), printable(l.name), printable(l.sku), o.code];
      const rowH = Math.max(...cols.map((c, i) => doc.heightOfString(cells[i], { width: c.w }))) + 2 * MM;
      if (y + rowH > bottom) {
        doc.addPage({ size: [W, H], margin: 0 });
        y = m;
        bottom = H - m;
        head();
      }
      for (const [i, c] of cols.entries()) doc.text(cells[i], c.x, y, { width: c.w, align: c.align });
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
  doc.font('Helvetica-Bold').text(`${units} item${units === 1 ? '' : 's'} in this parcel`, m, y + 2 * MM);

  return finish(doc);
}
