import bwipjs from 'bwip-js';
import PDFDocument from 'pdfkit';

export const MM = 72 / 25.4;

/** A pdfkit document with reproducible output: fixed dates, no random ids from the clock. */
export function newDocument(opts: { size: [number, number]; title: string; at: Date; margin?: number }) {
  return new PDFDocument({
    size: opts.size,
    margin: opts.margin ?? 0,
    autoFirstPage: true,
    info: { Title: opts.title, Producer: 'pod-partner-api', Creator: 'pod-partner-api', CreationDate: opts.at },
  });
}

export function finish(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.end();
  });
}

// The standard PDF fonts (no font files to ship) encode WinAnsi: Latin-1 and a few more. Letters
// outside it lose their accent (ł → l, ő → o) instead of printing as garbage on a carrier label.
const EXTRA: Record<string, string> = { ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', ı: 'i', ß: 'ß', œ: 'oe', Œ: 'OE' };
export function printable(s: string | null | undefined): string {
  if (!s) return '';
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20) out += ' ';
    else if (code <= 0xff) out += ch;
    else if (EXTRA[ch]) out += EXTRA[ch];
    else {
      const base = ch.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += [...base].every((c) => c.codePointAt(0)! <= 0xff) ? base : '?';
    }
  }
  return out;
}

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
export function inkOn(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  return l > 0.179 ? '#000000' : '#ffffff';
}

/** Code 128 of `text` as bwip-js's SVG (one unit per module), drawn as vectors by `drawBarcode`. */
export function code128Svg(text: string): string {
  return bwipjs.toSVG({ bcid: 'code128', text, scale: 1, height: 10, includetext: false });
}
