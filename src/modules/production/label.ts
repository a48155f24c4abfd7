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
import { MM } from './ink.ts';
import { code128Svg, finish, newDocument } from './pdf.ts';

/** A 4x6 in (100 x 150 mm) thermal shipping label: brand, return address, service, destination, barcode. */
export async function buildShippingLabel(input: ShipmentDocInput, at: Date): Promise<Buffer> {
  const W = 100 * MM;
  const H = 150 * MM;
  const m = 4 * MM;
  const inner = W - 2 * m;
  const doc = newDocument({ size: [W, H], title: `Shipping label ${input.shipment.reference}`, at });
  const rule = (y: number, width = 1) =>
    doc
      .save()
      .moveTo(m, y)
      .lineTo(W - m, y)
      .lineWidth(width)
      .stroke('#000')
      .restore();

  brandBand(doc, input, 0, 0, W, 20 * MM);

  // From (return address) on the left, the service on the right: what sorting looks at first.
  let y = 23 * MM;
  doc.fillColor('#000').font('Helvetica-Bold').fontSize(6.5).text('FROM / RETURN TO', m, y);
  doc.font('Helvetica').fontSize(7.5);
  doc.text(returnLines(input).join('\n'), m, y + 9, { width: inner * 0.58, lineGap: 0.5 });
  const boxX = m + inner * 0.62;
  const boxW = inner * 0.38;
  const express = input.shipment.level === 'express';
  doc.rect(boxX, y, boxW, 22 * MM).lineWidth(1.5);
  if (express) doc.fillAndStroke('#000', '#000');
  else doc.stroke('#000');
  doc
    .fillColor(express ? '#fff' : '#000')
    .font('Helvetica-Bold')
    .fontSize(16);
  doc.text(input.shipment.level.toUpperCase(), boxX, y + 5 * MM, { width: boxW, align: 'center' });
  doc.font('Helvetica').fontSize(9);
  doc.text(printable(input.shipment.carrier ?? 'Untracked post'), boxX, y + 13 * MM, { width: boxW, align: 'center' });
  doc.fillColor('#000');

  y = 48 * MM;
  rule(y, 2);
  doc
    .font('Helvetica-Bold')
    .fontSize(7)
    .text('SHIP TO', m, y + 3 * MM);
  const to = addressLines(input.destination);
  // The largest type (14 pt down to 6) in which the whole address fits its 40 mm: never cut off.
  const box = { width: inner - 3 * MM, lineGap: 1 };
  let size = 14;
  doc.font('Helvetica-Bold');
  while (size > 6 && doc.fontSize(size).heightOfString(to.join('\n'), box) > 40 * MM) size -= 0.5;
  doc.fontSize(size).text(to.join('\n'), m + 3 * MM, y + 8 * MM, box);

  y = 96 * MM;
  rule(y, 2);
  const code = barcodeValue(input);
  doc
    .font('Helvetica-Bold')
    .fontSize(7)
    .text(code.label.toUpperCase(), m, y + 3 * MM);
  drawBarcode(doc, code128Svg(code.value), m + 2 * MM, y + 7 * MM, inner - 4 * MM, 22 * MM);
  doc
    .font('Courier-Bold')
    .fontSize(12)
    .text(code.value, m, y + 31 * MM, { width: inner, align: 'center' });

  y = 134 * MM;
  rule(y);
  doc.font('Helvetica').fontSize(6.5).fillColor('#000');
  const orders = input.orders.map((o) => o.code).join(', ');
  const kg = (input.shipment.weightGrams / 1000).toFixed(2);
  doc.text(
    `Shipment ${input.shipment.reference} · ${input.shipment.shippedAt.toISOString().slice(0, 10)} · ${kg} kg`,
    m,
    y + 2 * MM,
    { width: inner, lineBreak: false, ellipsis: true },
  );
  doc.text(printable(`Orders ${orders}`), m, y + 5.5 * MM, { width: inner, lineBreak: false, ellipsis: true });
  const contact = contactLine(input);
  if (contact) doc.text(`Questions? ${contact}`, m, y + 9 * MM, { width: inner, lineBreak: false, ellipsis: true });
  return finish(doc);
}
