import PDFDocument from 'pdfkit';
import { useUnicodeFonts } from '../../platform/pdf-fonts.ts';
import { drawLaid, layoutText, textBox } from '../../platform/pdf-text.ts';
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

function invoiceNotes(inv: InvoiceRow): string[] {
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
  return notes;
}

const LEFT = 50;
const RIGHT = 595.28 - 50;
const BOTTOM = 841.89 - 50;
/** Table columns: date, description, order, net amount (wide enough for EUR 1,000,000.00 at 9 pt). */
const COLS = {
  date: { x: LEFT, width: 60 },
  what: { x: LEFT + 62, width: 165 },
  ref: { x: LEFT + 232, width: 165 },
  net: { x: RIGHT - 95, width: 95, align: 'right' as const },
};

/** The head: title, seller, buyer and the invoice's facts. Returns where the table starts. */
function head(doc: PDFKit.PDFDocument, inv: InvoiceRow, title: string, correctsNumber: string | null): number {
  const heading = `${title} ${inv.number}`;
  textBox(doc, heading, { x: LEFT, y: 50, width: 290, size: 20, minSize: 14, maxLines: 1, font: 'Helvetica-Bold' });
  const seller = [SELLER.name, ...SELLER.address, `VAT ${SELLER.vatNumber}`];
  textBox(doc, seller, { x: 350, y: 50, width: RIGHT - 350, size: 9, color: '#444', align: 'right', maxLines: 8 });

  // The buyer: every part in its own box, so a long name takes more lines and pushes the table
  // down instead of running into it.
  textBox(doc, 'Bill to', { x: LEFT, y: 130, width: 280, size: 10, font: 'Helvetica-Bold', color: '#000' });
  let by = 145;
  const buyer = (text: string | string[], maxLines: number) => {
    by += textBox(doc, text, { x: LEFT, y: by, width: 280, size: 10, maxLines }).height;
  };
  buyer(inv.buyer.legalEntity, 3);
  buyer(
    addressLines(inv.buyer.billingAddress).filter((l) => l !== inv.buyer.legalEntity),
    6,
  );
  buyer(inv.buyer.vatNumber ? `VAT number: ${inv.buyer.vatNumber}` : 'VAT number: none', 2);
  buyer(`Account: ${inv.buyer.accountName} (${inv.account_id})`, 3);

  const facts: Array<[string, string]> = [
    ['Number', inv.number],
    ['Issued', day(inv.issued_at)],
    ['Period', `${inv.period_start} – ${lastDay(inv.period_end)}`],
    ['Due', day(inv.due_at)],
  ];
  if (correctsNumber) facts.push(['Corrects', correctsNumber]);
  let y = 130;
  for (const [k, v] of facts) {
    textBox(doc, k, { x: 350, y, width: 58, size: 10, font: 'Helvetica-Bold', maxLines: 1 });
    textBox(doc, v, { x: 410, y, width: RIGHT - 410, size: 10, minSize: 8, maxLines: 1 });
    y += 14;
  }
  return Math.max(260, by + 24, y + 24);
}

/** The lines, each row as tall as its tallest cell; a row that does not fit starts a page with the header again. */
function rows(doc: PDFKit.PDFDocument, lines: InvoiceRow['lines'], top: number): number {
  let y = top;
  const header = () => {
    const h = { y, size: 9, font: 'Helvetica-Bold' as const, maxLines: 1 };
    textBox(doc, 'Date', { ...h, ...COLS.date });
    textBox(doc, 'Description', { ...h, ...COLS.what });
    textBox(doc, 'Order', { ...h, ...COLS.ref });
    textBox(doc, 'Net', { ...h, ...COLS.net });
    doc
      .moveTo(LEFT, y + 12)
      .lineTo(RIGHT, y + 12)
      .strokeColor('#999')
      .stroke();
    y += 18;
  };
  header();
  for (const l of lines) {
    const cells = [
      { text: l.date, box: { ...COLS.date, size: 9, maxLines: 1 }, dy: 0 },
      { text: l.description, box: { ...COLS.what, size: 9, maxLines: 4 }, dy: 0 },
      // An order reference is one word an accountant searches for: it shrinks rather than breaks.
      { text: l.orderReference ?? '', box: { ...COLS.ref, size: 8, minSize: 6, maxLines: 1 }, dy: 1 },
      { text: eur(l.netCents), box: { ...COLS.net, size: 9, minSize: 6, maxLines: 1 }, dy: 0 },
    ].map((c) => ({ ...c, laid: layoutText(doc, c.text, { ...c.box, y }) }));
    const h = Math.max(11, ...cells.map((c) => c.laid.height + c.dy));
    if (y + h > BOTTOM) {
      doc.addPage();
      y = 50;
      header();
    }
    for (const c of cells) drawLaid(doc, c.laid, { ...c.box, y: y + c.dy, color: '#000' });
    y += h + 5;
  }
  return y;
}

/** The totals and the notes, kept together: on the next page when this one has no room for them. */
function totals(doc: PDFKit.PDFDocument, inv: InvoiceRow, top: number): void {
  let y = top;
  const notes = invoiceNotes(inv);
  const noteBox = { x: LEFT, width: RIGHT - LEFT, size: 9, color: '#333' };
  const notesH = layoutText(doc, notes, { ...noteBox, y: 0 }).height;
  if (y + 8 + 3 * 14 + 12 + notesH > BOTTOM) {
    doc.addPage();
    y = 50;
  }
  doc.moveTo(LEFT, y).lineTo(RIGHT, y).strokeColor('#999').stroke();
  y += 8;
  const vatLabel = inv.vat_treatment === 'reverse_charge' ? 'VAT 0% (reverse charge)' : `VAT ${inv.vat_rate_percent}%`;
  for (const [k, v, bold] of [
    ['Net total', inv.net_cents, false],
    [vatLabel, inv.vat_cents, false],
    ['Total', inv.total_cents, true],
  ] as Array<[string, number, boolean]>) {
    const font = bold ? 'Helvetica-Bold' : 'Helvetica';
    textBox(doc, k, { x: COLS.ref.x, y, width: 150, size: 9, font, color: '#000', maxLines: 1 });
    textBox(doc, eur(v), { ...COLS.net, y, size: 9, minSize: 6, font, maxLines: 1 });
    y += 14;
  }
  textBox(doc, notes, { ...noteBox, y: y + 12, height: BOTTOM - y - 12 });
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
  useUnicodeFonts(doc, { countryCode: inv.buyer.billingAddress.countryCode });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  totals(doc, inv, rows(doc, inv.lines, head(doc, inv, title, correctsNumber)));
  doc.end();
  return done;
}
