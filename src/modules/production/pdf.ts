import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

let srgb: Buffer | null = null;
/**
 * Declares the page's RGB as sRGB IEC61966-2.1: an OutputIntent with the profile embedded (the one
 * pdfkit ships for PDF/A), so the RIP converts the artwork to its inks from a known colour space
 * instead of guessing what "RGB" meant (docs/decisions/0400).
 */
export function addSrgbOutputIntent(doc: PDFKit.PDFDocument): void {
  srgb ??= readFileSync(join(dirname(fileURLToPath(import.meta.resolve('pdfkit'))), 'data', 'sRGB_IEC61966_2_1.icc'));
  const d = doc as unknown as {
    ref(o: object): { write(b: Buffer): void; end(): void };
    _root: { data: Record<string, unknown> };
  };
  const profile = d.ref({ Length: srgb.length, N: 3 });
  profile.write(srgb);
  profile.end();
  const intent = d.ref({
    Type: 'OutputIntent',
    S: 'GTS_PDFX',
    Info: new String('sRGB IEC61966-2.1'),
    OutputConditionIdentifier: new String('sRGB IEC61966-2.1'),
    RegistryName: new String('http://www.color.org'),
    DestOutputProfile: profile,
  });
  intent.end();
  d._root.data.OutputIntents = [intent];
}
