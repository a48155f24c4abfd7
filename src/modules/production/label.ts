import {
  type ShipmentDocInput,
  addressLines,
  barcodeValue,
  brandBand,
  contactLine,
  countryName,
  drawBarcode,
  returnLines,
} from './documents.ts';
import { drawLaid, layoutText, textBox } from '../../platform/pdf-text.ts';
import { MM } from './ink.ts';
import { code128Svg, finish, newDocument } from './pdf.ts';

/**
 * A 4x6 in (100 x 150 mm) thermal shipping label: brand, return address, service, destination, barcode.
 * Every block has its own box, so the label is one page whatever the data: the destination shrinks to
 * fit, and what still does not fit is cut with an ellipsis, the country line excepted.
 */
export async function buildShippingLabel(input: ShipmentDocInput, at: Date): Promise<Buffer> {
  const W = 100 * MM;
  const H = 150 * MM;
  const m = 4 * MM;
  const inner = W - 2 * m;
  const doc = newDocument({
    size: [W, H],
    title: `Shipping label ${input.shipment.reference}`,
    at,
    countryCode: input.destination.countryCode,
  });
  const rule = (y: number, width = 1) =>
    doc
      .save()
      .moveTo(m, y)
      .lineTo(W - m, y)
      .lineWidth(width)
      .stroke('#000')
      .restore();

  brandBand(doc, input, 0, 0, W, 20 * MM);

  // Return address on the left, the service on the right: what sorting looks at first.
  let y = 23 * MM;
  const fromW = inner * 0.58;
  textBox(doc, 'FROM / RETURN TO', { x: m, y, width: fromW, size: 6.5, font: 'Helvetica-Bold', color: '#000' });
  const [sender, ...from] = returnLines(input);
  const name = textBox(doc, sender, { x: m, y: y + 9, width: fromW, size: 7.5, maxLines: 1 });
  textBox(doc, from, {
    x: m,
    y: y + 9 + name.height + 0.5,
    width: fromW,
    height: 46 * MM - (y + 9 + name.height + 0.5),
    size: 7.5,
    minSize: 5.5,
    lineGap: 0.5,
  });
  const boxX = m + inner * 0.62;
  const boxW = inner * 0.38;
  const express = input.shipment.level === 'express';
  doc.rect(boxX, y, boxW, 22 * MM).lineWidth(1.5);
  if (express) doc.fillAndStroke('#000', '#000');
  else doc.stroke('#000');
  const ink = express ? '#fff' : '#000';
  const service = { x: boxX + 1 * MM, width: boxW - 2 * MM, align: 'center' as const, color: ink };
  textBox(doc, input.shipment.level.toUpperCase(), {
    ...service,
    y: y + 5 * MM,
    size: 16,
    minSize: 9,
    maxLines: 1,
    font: 'Helvetica-Bold',
  });
  textBox(doc, input.shipment.carrier ?? 'Untracked post', { ...service, y: y + 12 * MM, size: 9, maxLines: 2 });

  y = 48 * MM;
  rule(y, 2);
  textBox(doc, 'SHIP TO', { x: m, y: y + 3 * MM, width: inner, size: 7, font: 'Helvetica-Bold', color: '#000' });
  // The largest type (14 pt down to 6) in which the address fits its 40 mm; the country, which the
  // first carrier sorts by, keeps its own line below whatever else had to be cut.
  const to = addressLines(input.destination, false);
  const country = countryName(input.destination.countryCode);
  const box = { x: m + 3 * MM, y: y + 8 * MM, width: inner - 3 * MM, font: 'Helvetica-Bold' as const, lineGap: 1 };
  const place = (size: number) => {
    const last = layoutText(doc, country, { ...box, size, maxLines: 1 });
    const lines = layoutText(doc, to, { ...box, size, height: 38 * MM - last.height - 1 });
    return { last, lines };
  };
  let size = 14;
  while (size > 6 && place(size).lines.cut) size -= 0.5;
  const { last, lines } = place(size);
  drawLaid(doc, lines, { ...box, size });
  drawLaid(doc, last, { ...box, size, y: box.y + lines.height + 1 });

  y = 96 * MM;
  rule(y, 2);
  const code = barcodeValue(input);
  textBox(doc, code.label.toUpperCase(), { x: m, y: y + 3 * MM, width: inner, size: 7, font: 'Helvetica-Bold' });
  drawBarcode(doc, code128Svg(code.value), m + 2 * MM, y + 7 * MM, inner - 4 * MM, 22 * MM);
  textBox(doc, code.value, {
    x: m,
    y: y + 31 * MM,
    width: inner,
    size: 12,
    minSize: 7,
    maxLines: 1,
    font: 'Courier-Bold',
    align: 'center',
  });

  y = 134 * MM;
  rule(y);
  const foot = { x: m, width: inner, size: 6.5, maxLines: 1, color: '#000' };
  const orders = input.orders.map((o) => o.code).join(', ');
  const kg = (input.shipment.weightGrams / 1000).toFixed(2);
  const day = input.shipment.shippedAt.toISOString().slice(0, 10);
  textBox(doc, `Shipment ${input.shipment.reference} · ${day} · ${kg} kg`, { ...foot, y: y + 2 * MM });
  textBox(doc, `Orders ${orders}`, { ...foot, y: y + 5.5 * MM });
  const contact = contactLine(input);
  if (contact) textBox(doc, `Questions? ${contact}`, { ...foot, y: y + 9 * MM });
  return finish(doc);
}
