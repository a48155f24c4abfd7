import bwipjs from 'bwip-js';
import PDFDocument from 'pdfkit';
import type { StandInParcel } from './sendcloud-standin.ts';

/**
 * The parcel documents the Sendcloud stand-in answers, drawn from the announcement it received:
 * Sendcloud's documents publish no example bodies for them (they are binary).
 */

/** A carrier-style A6 label: routing, product, addresses, and the tracking barcode. */
export async function labelPdf(req: any, carrier: string, tracking: string, option: string): Promise<Buffer> {
  const barcode = await bwipjs.toBuffer({ bcid: 'code128', text: tracking, scale: 3, height: 14, includetext: true });
  const doc = new PDFDocument({ size: 'A6', margin: 14 });
  const chunks: Buffer[] = [];
  doc.on('data', (c) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on('end', () => r(Buffer.concat(chunks))));
  const to = req.to_address;
  const from = req.from_address;
  doc.fontSize(16).font('Helvetica-Bold').text(carrier, { continued: true }).fontSize(9).text(`   ${option}`);
  doc
    .moveDown(0.3)
    .fontSize(7)
    .font('Helvetica')
    .text(`From: ${from.name}, ${from.address_line_1}, ${from.postal_code} ${from.city}, ${from.country_code}`);
  doc.moveDown(0.6).fontSize(8).text('Deliver to:');
  doc.fontSize(11).font('Helvetica-Bold').text(to.name);
  doc.font('Helvetica').text(`${to.address_line_1}${to.house_number ? ` ${to.house_number}` : ''}`);
  if (to.address_line_2) doc.text(to.address_line_2);
  doc.text(
    to.state_province_code
      ? `${to.city} ${to.state_province_code.split('-')[1]} ${to.postal_code}`
      : `${to.postal_code} ${to.city}`,
  );
  doc.text(to.country_code);
  doc
    .moveDown(0.5)
    .fontSize(18)
    .font('Helvetica-Bold')
    .text(`${to.country_code}-${to.postal_code.replace(/\s/g, '').slice(0, 4)}`);
  doc
    .fontSize(8)
    .font('Helvetica')
    .text(
      `Weight ${req.parcels[0].weight.value} ${req.parcels[0].weight.unit}${req.customs_information ? '   CN23 customs declaration enclosed' : ''}`,
    );
  doc.image(barcode, 14, doc.y + 8, { width: 270 });
  doc.end();
  return done;
}

/**
 * A CN23 customs declaration as carriers print it for Sendcloud (A4): sender, addressee, every item
 * with quantity, net weight, value, HS code and origin, the totals, the category of the goods (the
 * export reason) and the invoice number; the tracking barcode to tie it to the parcel.
 */
export async function cn23Pdf(req: any, carrier: string, tracking: string): Promise<Buffer> {
  const barcode = await bwipjs.toBuffer({ bcid: 'code128', text: tracking, scale: 2, height: 10, includetext: true });
  const doc = new PDFDocument({ size: 'A4', margin: 40 });
  const chunks: Buffer[] = [];
  doc.on('data', (c) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on('end', () => r(Buffer.concat(chunks))));
  const to = req.to_address;
  const from = req.from_address;
  const items: any[] = req.parcels[0].parcel_items;
  const currency = req.total_order_price.currency;
  doc.font('Helvetica-Bold').fontSize(18).text('CUSTOMS DECLARATION  CN 23', 40, 40);
  doc.font('Helvetica').fontSize(8).text(`${carrier} · may be opened officially`, 40, 64);
  doc.image(barcode, 360, 36, { width: 190 });
  const box = (x: number, y: number, w: number, title: string, lines: string[]) => {
    doc.rect(x, y, w, 92).stroke('#000');
    doc
      .font('Helvetica-Bold')
      .fontSize(7)
      .text(title, x + 6, y + 6);
    doc
      .font('Helvetica')
      .fontSize(9)
      .text(lines.filter(Boolean).join('\n'), x + 6, y + 18, { width: w - 12 });
  };
  const addr = (a: any) => [
    a.name,
    a.company_name === a.name ? '' : a.company_name,
    `${a.address_line_1}${a.house_number ? ` ${a.house_number}` : ''}`,
    a.address_line_2,
    `${a.postal_code} ${a.city}${a.state_province_code ? ` ${a.state_province_code}` : ''}`,
    a.country_code,
  ];
  box(40, 100, 255, 'FROM (SENDER)', addr(from));
  box(300, 100, 255, 'TO (ADDRESSEE)', addr(to));
  const cols = [40, 250, 290, 350, 420, 490];
  const row = (cells: string[], at: number) => {
    for (const [i, v] of cells.entries()) doc.text(v, cols[i], at, { width: (cols[i + 1] ?? 555) - cols[i] - 4 });
  };
  let y = 210;
  doc.font('Helvetica-Bold').fontSize(8);
  row(['Detailed description of contents', 'Qty', 'Net kg', `Value ${currency}`, 'HS tariff no.', 'Origin'], y);
  doc
    .moveTo(40, y + 12)
    .lineTo(555, y + 12)
    .stroke();
  doc.font('Helvetica').fontSize(9);
  let kg = 0;
  let value = 0;
  for (const it of items) {
    y += 18;
    const lineKg = it.weight.value * it.quantity;
    const lineValue = Number(it.price.value) * it.quantity;
    kg += lineKg;
    value += lineValue;
    row(
      [it.description, String(it.quantity), lineKg.toFixed(3), lineValue.toFixed(2), it.hs_code, it.origin_country],
      y,
    );
  }
  y += 20;
  doc.moveTo(40, y).lineTo(555, y).stroke();
  doc.font('Helvetica-Bold').text('Total', cols[0], y + 6);
  doc.text(kg.toFixed(3), cols[2], y + 6).text(value.toFixed(2), cols[3], y + 6);
  const info = req.customs_information;
  doc.font('Helvetica').fontSize(9);
  doc.text(`Category of item: ${info.export_reason}   Export type: ${info.export_type ?? '—'}`, 40, y + 34);
  doc.text(`Invoice no.: ${info.invoice_number}   Gross weight: ${req.parcels[0].weight.value} kg`, 40, y + 50);
  doc.text(
    'I certify that the particulars given in this customs declaration are correct and that this item does not contain any dangerous article prohibited by legislation or by postal or customs regulations.',
    40,
    y + 76,
    { width: 515 },
  );
  doc.text(`Date and sender's signature: ${new Date().toISOString().slice(0, 10)}  ${from.name}`, 40, y + 112);
  doc.end();
  return done;
}

/** A carrier-style 4x6 in ZPL label at 203 dpi: addresses, routing code and the tracking barcode. */
export function labelZpl(p: StandInParcel): string {
  const to = p.request.to_address;
  const from = p.request.from_address;
  const street = `${to.address_line_1}${to.house_number ? ` ${to.house_number}` : ''}`;
  return [
    '^XA^CI28^PW812^LL1218',
    `^FO40,40^A0N,50,50^FD${p.carrier.name}^FS^FO400,52^A0N,28,28^FD${p.request.ship_with.properties.shipping_option_code}^FS`,
    `^FO40,110^A0N,24,24^FDFrom: ${from.name}, ${from.address_line_1}, ${from.postal_code} ${from.city}^FS`,
    `^FO40,180^A0N,36,36^FD${to.name}^FS^FO40,225^A0N,36,36^FD${street}^FS`,
    `^FO40,270^A0N,36,36^FD${to.postal_code} ${to.city} ${to.country_code}^FS`,
    `^FO40,360^A0N,70,70^FD${to.country_code}-${String(to.postal_code).replace(/\s/g, '').slice(0, 4)}^FS`,
    `^FO40,450^A0N,26,26^FDWeight ${p.request.parcels[0].weight.value} kg${p.request.customs_information ? '   CN23 customs declaration enclosed' : ''}^FS`,
    `^FO60,500^BY3^BCN,200,Y,N,N^FD${p.trackingNumber}^FS`,
    '^XZ',
  ].join('\n');
}
