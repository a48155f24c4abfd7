import bwipjs from 'bwip-js';
import PDFDocument from 'pdfkit';
import { useUnicodeFonts } from '../../platform/pdf-fonts.ts';

/**
 * A pdfkit document with reproducible output (fixed dates, no random ids from the clock) in Unicode
 * fonts; `countryCode`, the destination's, picks the regional forms of Chinese, Japanese and Korean letters.
 */
export function newDocument(opts: {
  size: [number, number];
  title: string;
  at: Date;
  margin?: number;
  countryCode?: string;
}) {
  const doc = new PDFDocument({
    size: opts.size,
    margin: opts.margin ?? 0,
    autoFirstPage: true,
    info: { Title: opts.title, Producer: 'pod-partner-api', Creator: 'pod-partner-api', CreationDate: opts.at },
  });
  return useUnicodeFonts(doc, { countryCode: opts.countryCode });
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

/** Code 128 of `text` as bwip-js's SVG (one unit per module), drawn as vectors by `drawBarcode`. */
export function code128Svg(text: string): string {
  return bwipjs.toSVG({ bcid: 'code128', text, scale: 1, height: 10, includetext: false });
}
