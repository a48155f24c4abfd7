import PDFDocument from 'pdfkit';
import { useUnicodeFonts } from '../../platform/pdf-fonts.ts';
import type { InvoiceRow } from './repo.ts';
import { SELLER } from './vat.ts';

const eur = (cents: number) =>
  `${cents < 0 ? '-' : ''}EUR ${(Math.abs(cents) / 100).toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const day = (d: Date) => d.toISOString().slice(0, 10);
/** The period is stored with an exclusive end; the page shows its last day. */
const lastDay = (end: string) => day(new Date(Date.parse(`${end}T00:00:00Z`) - 86_400_000));

function addressLines(a: Record<string, string>): string[] {
  const name = [a.firstname, a.lastname].filter(Boolean).join(' ');
  return [
    a.company,
    name,
    [a.streetname, a.housenumber, a.housenumberAddition].filter(Boolean).join(' '),
    [a.zipcode, a.city].filter(Boolean).join(' '),
    [a.state, a.countryCode].filter(Boolean).join(' '),
  ].filter((l): l is string => Boolean(l?.trim()));
}

/**
 * An invoice or credit note as an A4 PDF, from the stored row only (and the number it corrects):
 * the creation date is the issue date, so the same invoice gives the same document every time.
 */
export function invoicePdf(inv: InvoiceRow, correctsNumber: string | null): Promise<Buffer> {
  const title = inv.kind === 'invoice' ? 'Invoice' : 'Credit note';
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `${title} ${inv.number}`, Author: SELLER.name, CreationDate: inv.issued_at },
  });
  useUnicodeFonts(doc);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = 50;
  const right = doc.page.width - 50;
  doc.font('Helvetica-Bold').fontSize(20).text(`${title} ${inv.number}`, left, 50);
  doc.font('Helvetica').fontSize(9).fillColor('#444');
  doc.text([SELLER.name, ...SELLER.address, `VAT ${SELLER.vatNumber}`].join('\n'), 350, 50, {
    width: right - 350,
    align: 'right',
  });

  doc.fillColor('#000').fontSize(10).font('Helvetica-Bold').text('Bill to', left, 130);
  doc
    .font('Helvetica')
    .text(
      [
        inv.buyer.legalEntity,
        ...addressLines(inv.buyer.billingAddress).filter((l) => l !== inv.buyer.legalEntity),
        inv.buyer.vatNumber ? `VAT number: ${inv.buyer.vatNumber}` : 'VAT number: none',
        `Account: ${inv.buyer.accountName} (${inv.account_id})`,
      ].join('\n'),
      left,
      145,
      { width: 280 },
    );
  const facts: Array<[string, string]> = [
    ['Number', inv.number],
    ['Issued', day(inv.issued_at)],
    ['Period', `${inv.period_start} – ${lastDay(inv.period_end)}`],
    ['Due', day(inv.due_at)],
  ];
  if (correctsNumber) facts.push(['Corrects', correctsNumber]);
  let y = 130;
  for (const [k, v] of facts) {
    doc.font('Helvetica-Bold').text(k, 350, y, { width: 60 });
    doc.font('Helvetica').text(v, 410, y, { width: right - 410 });
    y += 14;
  }

  y = 260;
  const cols = { date: left, what: left + 62, ref: left + 232, amount: right - 80 };
  const header = () => {
    doc.font('Helvetica-Bold').fontSize(9);
    doc.text('Date', cols.date, y).text('Description', cols.what, y).text('Order', cols.ref, y);
    doc.text('Net', cols.amount, y, { width: 80, align: 'right' });
    doc
      .moveTo(left, y + 12)
      .lineTo(right, y + 12)
      .strokeColor('#999')
      .stroke();
    y += 18;
    doc.font('Helvetica');
  };
  header();
  for (const l of inv.lines) {
    if (y > doc.page.height - 160) {
      doc.addPage();
      y = 50;
      header();
    }
    const h = Math.max(doc.heightOfString(l.description, { width: 165 }), 11);
    doc.text(l.date, cols.date, y);
    doc.text(l.description, cols.what, y, { width: 165 });
    doc
      .fontSize(8)
      .text(l.orderReference ?? '', cols.ref, y + 1, { width: 175 })
      .fontSize(9);
    doc.text(eur(l.netCents), cols.amount, y, { width: 80, align: 'right' });
    y += h + 5;
  }
  doc.moveTo(left, y).lineTo(right, y).strokeColor('#999').stroke();
  y += 8;
  const vatLabel = inv.vat_treatment === 'reverse_charge' ? 'VAT 0% (reverse charge)' : `VAT ${inv.vat_rate_percent}%`;
  for (const [k, v, bold] of [
    ['Net total', inv.net_cents, false],
    [vatLabel, inv.vat_cents, false],
    ['Total', inv.total_cents, true],
  ] as Array<[string, number, boolean]>) {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').text(k, cols.ref, y, { width: 150 });
    doc.text(eur(v), cols.amount, y, { width: 80, align: 'right' });
    y += 14;
  }
  y += 12;
  doc.font('Helvetica').fontSize(9).fillColor('#333');
  const notes: string[] = [];
  if (inv.vat_treatment === 'reverse_charge')
    notes.push('VAT reverse-charged: the recipient accounts for the VAT (Article 196, Council Directive 2006/112/EC).');
  if (inv.kind === 'credit_note' && inv.reason) notes.push(`Reason: ${inv.reason}`);
  notes.push(
    inv.kind === 'credit_note'
      ? 'This credit note is settled through your account balance.'
      : inv.due_at.getTime() === inv.issued_at.getTime()
        ? 'Prepaid account: these amounts were settled from your balance.'
        : `Please pay by ${day(inv.due_at)} to ${SELLER.iban}, quoting ${inv.number}.`,
  );
  doc.text(notes.join('\n'), left, y, { width: right - left });
  doc.end();
  return done;
}
