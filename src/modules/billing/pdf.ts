import PDFDocument from 'pdfkit';
import { useUnicodeFonts } from '../../platform/pdf-fonts.ts';
import { drawLaid, layoutText, textBox } from '../../platform/pdf-text.ts';
import { type SellerConfig, ibanPrinted } from '../../config-seller.ts';
import { groupsOf } from './credit-notes.ts';
import type { InvoiceLine } from './invoice-lines.ts';
import type { InvoiceRow } from './repo.ts';

const eur = (cents: number) =>
  `${cents < 0 ? '-' : ''}EUR ${(Math.abs(cents) / 100).toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const day = (d: Date) => d.toISOString().slice(0, 10);
/** The period is stored with an exclusive end; the page shows its last day. */
const lastDay = (end: string) => day(new Date(Date.parse(`${end}T00:00:00Z`) - 86_400_000));

const regions = new Intl.DisplayNames(['en'], { type: 'region' });
/** `NL` → `Netherlands`: an address reads as one, the code stays where no name is known. */
const countryName = (code: string | undefined): string => {
  if (!code) return '';
  try {
    return regions.of(code) ?? code;
  } catch {
    return code;
  }
};

function addressLines(a: Record<string, string>): string[] {
  const name = [a.firstname, a.lastname].filter(Boolean).join(' ');
  return [
    a.company,
    name,
    [a.streetname, a.housenumber, a.housenumberAddition].filter(Boolean).join(' '),
    [a.zipcode, a.city].filter(Boolean).join(' '),
    [a.state, countryName(a.countryCode)].filter(Boolean).join(' '),
  ].filter((l): l is string => Boolean(l?.trim()));
}

function invoiceNotes(inv: InvoiceRow, seller: SellerConfig): string[] {
  const notes: string[] = [];
  // The wording each VAT rate needs (Art. 226(11) Directive 2006/112/EC), once per rate.
  for (const g of groupsOf(inv)) {
    const wording =
      g.wording ??
      (g.category === 'K'
        ? 'Intra-Community supply of goods, exempt under Article 138(1) of Council Directive 2006/112/EC. Reverse charge: the customer accounts for the VAT on the intra-Community acquisition (Article 200).'
        : null);
    if (wording && !notes.includes(wording)) notes.push(wording);
  }
  if (inv.kind === 'credit_note' && inv.reason) notes.push(`Reason: ${inv.reason}`);
  notes.push(
    inv.kind === 'credit_note'
      ? 'This credit note is settled through your account balance.'
      : inv.due_at.getTime() === inv.issued_at.getTime()
        ? 'Prepaid account: these amounts were settled from your balance.'
        : `Please pay by ${day(inv.due_at)} to IBAN ${ibanPrinted(seller.iban)} (${seller.name}), quoting ${inv.number}.`,
  );
  notes.push(`Questions about this document: ${seller.email}.`);
  return notes;
}

const LEFT = 50;
const RIGHT = 595.28 - 50;
const BOTTOM = 841.89 - 50;
/** Table columns (wide enough for EUR 1,000,000.00 at 9 pt). */
const COLS = {
  what: { x: LEFT, width: 170 },
  sku: { x: LEFT + 174, width: 80 },
  qty: { x: LEFT + 256, width: 30, align: 'right' as const },
  unit: { x: LEFT + 290, width: 70, align: 'right' as const },
  vat: { x: LEFT + 364, width: 40, align: 'right' as const },
  net: { x: RIGHT - 87, width: 87, align: 'right' as const },
};
/** Where the totals' labels start. */
const TOTALS_X = LEFT + 256;

const sellerLines = (s: SellerConfig) => [
  s.name,
  s.street,
  `${s.postcode} ${s.city}`,
  countryName(s.countryCode),
  `VAT ${s.vatNumber}`,
  `KvK ${s.kvk}`,
  `IBAN ${ibanPrinted(s.iban)}`,
];

/** The head: title, seller, buyer and the invoice's facts. Returns where the table starts. */
function head(
  doc: PDFKit.PDFDocument,
  inv: InvoiceRow,
  seller: SellerConfig,
  title: string,
  correctsNumber: string | null,
): number {
  const heading = `${title} ${inv.number}`;
  textBox(doc, heading, { x: LEFT, y: 50, width: 290, size: 20, minSize: 14, maxLines: 1, font: 'Helvetica-Bold' });
  const sy = 40;
  const sh = textBox(doc, sellerLines(seller), {
    x: 350,
    y: sy,
    width: RIGHT - 350,
    size: 8.5,
    color: '#444',
    align: 'right',
    maxLines: 9,
  }).height;

  // The buyer: every part in its own box, so a long name takes more lines and pushes the table
  // down instead of running into it.
  const top = Math.max(130, sy + sh + 10);
  textBox(doc, 'Bill to', { x: LEFT, y: top, width: 280, size: 10, font: 'Helvetica-Bold', color: '#000' });
  let by = top + 15;
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
    ['Date', day(inv.issued_at)],
    ['Period', `${inv.period_start} – ${lastDay(inv.period_end)}`],
  ];
  if (inv.kind === 'invoice') facts.push(['Due', day(inv.due_at)]);
  if (correctsNumber) facts.push(['Corrects', correctsNumber]);
  let y = top;
  for (const [k, v] of facts) {
    textBox(doc, k, { x: 350, y, width: 58, size: 10, font: 'Helvetica-Bold', maxLines: 1 });
    textBox(doc, v, { x: 410, y, width: RIGHT - 410, size: 10, minSize: 8, maxLines: 1 });
    y += 14;
  }
  return Math.max(260, by + 24, y + 24);
}

const pct = (n: number) => `${n} %`;

/** The heading of an order's block: its reference, the partner's identifier, the store and destination. */
function blockTitle(l: InvoiceLine): string {
  if (!l.orderReference)
    return l.kind === 'adjustment' && /^Correction of invoice/.test(l.description) ? '' : 'Other charges and credits';
  const parts = [`Order ${l.orderReference}`];
  if (l.order?.customIdentifier) parts.push(`your reference ${l.order.customIdentifier}`);
  if (l.order?.store) parts.push(`store ${l.order.store}`);
  if (l.order?.shipTo) parts.push(`ship to ${l.order.shipTo}`);
  parts.push(l.date);
  return parts.join(' · ');
}

/**
 * The lines in blocks per order, each row as tall as its tallest cell; a row that does not fit
 * starts a page with the header again.
 */
function rows(doc: PDFKit.PDFDocument, lines: InvoiceLine[], top: number): number {
  let y = top;
  const header = () => {
    const h = { y, size: 9, font: 'Helvetica-Bold' as const, maxLines: 1 };
    textBox(doc, 'Description', { ...h, ...COLS.what });
    textBox(doc, 'SKU', { ...h, ...COLS.sku });
    textBox(doc, 'Qty', { ...h, ...COLS.qty });
    textBox(doc, 'Unit price', { ...h, ...COLS.unit });
    textBox(doc, 'VAT', { ...h, ...COLS.vat });
    textBox(doc, 'Amount', { ...h, ...COLS.net });
    doc
      .moveTo(LEFT, y + 12)
      .lineTo(RIGHT, y + 12)
      .strokeColor('#999')
      .stroke();
    y += 18;
  };
  const fits = (h: number) => {
    if (y + h <= BOTTOM) return;
    doc.addPage();
    y = 50;
    header();
  };
  header();
  let block: string | null = null;
  for (const l of lines) {
    const title = blockTitle(l);
    if (title !== block && title) {
      const laid = layoutText(doc, title, { x: LEFT, width: RIGHT - LEFT, y, size: 8.5, maxLines: 3 });
      fits(laid.height + 20);
      y += block === null ? 0 : 4;
      drawLaid(doc, laid, {
        x: LEFT,
        width: RIGHT - LEFT,
        y,
        size: 8.5,
        maxLines: 3,
        color: '#333',
        font: 'Helvetica-Bold',
      });
      y += laid.height + 4;
      block = title;
    }
    const cells = [
      { text: l.description, box: { ...COLS.what, size: 9, maxLines: 4 }, dy: 0 },
      // A SKU is one word an accountant searches for: it shrinks rather than breaks.
      { text: l.sku ?? '', box: { ...COLS.sku, size: 8, minSize: 6, maxLines: 1 }, dy: 1 },
      { text: l.quantity === undefined ? '' : String(l.quantity), box: { ...COLS.qty, size: 9, maxLines: 1 }, dy: 0 },
      {
        text: l.unitPriceCents === undefined ? '' : eur(l.unitPriceCents),
        box: { ...COLS.unit, size: 9, minSize: 6, maxLines: 1 },
        dy: 0,
      },
      { text: l.vat ? pct(l.vat.ratePercent) : '', box: { ...COLS.vat, size: 9, maxLines: 1 }, dy: 0 },
      { text: eur(l.netCents), box: { ...COLS.net, size: 9, minSize: 6, maxLines: 1 }, dy: 0 },
    ].map((c) => ({ ...c, laid: layoutText(doc, c.text, { ...c.box, y }) }));
    const h = Math.max(11, ...cells.map((c) => c.laid.height + c.dy));
    fits(h);
    for (const c of cells) drawLaid(doc, c.laid, { ...c.box, y: y + c.dy, color: '#000' });
    y += h + 5;
  }
  return y;
}

/** The totals by VAT rate, the document's totals and the notes, kept together on one page. */
function totals(doc: PDFKit.PDFDocument, inv: InvoiceRow, seller: SellerConfig, top: number): void {
  let y = top;
  const notes = invoiceNotes(inv, seller);
  const noteBox = { x: LEFT, width: RIGHT - LEFT, size: 9, color: '#333' };
  const notesH = layoutText(doc, notes, { ...noteBox, y: 0 }).height;
  const rowsOut: Array<[string, number, boolean]> = [];
  for (const g of groupsOf(inv)) {
    const what = g.category === 'S' ? `${pct(g.ratePercent)}` : `${pct(g.ratePercent)}, ${g.label}`;
    rowsOut.push([`Net at ${what}`, g.netCents, false], [`VAT ${what}`, g.vatCents, false]);
  }
  rowsOut.push(
    ['Total net', inv.net_cents, true],
    ['Total VAT', inv.vat_cents, true],
    ['Total', inv.total_cents, true],
  );
  if (y + 8 + rowsOut.length * 14 + 12 + notesH > BOTTOM) {
    doc.addPage();
    y = 50;
  }
  doc.moveTo(LEFT, y).lineTo(RIGHT, y).strokeColor('#999').stroke();
  y += 8;
  for (const [k, v, bold] of rowsOut) {
    const font = bold ? 'Helvetica-Bold' : 'Helvetica';
    textBox(doc, k, {
      x: TOTALS_X,
      y,
      width: COLS.net.x - TOTALS_X - 4,
      size: 9,
      minSize: 7,
      font,
      color: '#000',
      maxLines: 1,
    });
    textBox(doc, eur(v), { ...COLS.net, y, size: 9, minSize: 6, font, maxLines: 1 });
    y += 14;
  }
  textBox(doc, notes, { ...noteBox, y: y + 12, height: BOTTOM - y - 12 });
}

/**
 * An invoice or credit note as an A4 PDF, from the stored row only (and the number it corrects):
 * the creation date is the issue date, so the same invoice gives the same document every time.
 */
export function invoicePdf(
  inv: InvoiceRow,
  correctsNumber: string | null,
  currentSeller: SellerConfig,
): Promise<Buffer> {
  // The seller as stored on the document; a document without stored seller details shows the configured ones.
  const seller = inv.seller ?? currentSeller;
  const title = inv.kind === 'invoice' ? 'Invoice' : 'Credit note';
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `${title} ${inv.number}`, Author: seller.name, CreationDate: inv.issued_at },
  });
  useUnicodeFonts(doc, { countryCode: inv.buyer.billingAddress.countryCode });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  totals(doc, inv, seller, rows(doc, inv.lines, head(doc, inv, seller, title, correctsNumber)));
  doc.end();
  return done;
}
