import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The standard PDF fonts encode WinAnsi only: a name like "Łukasz Żółć", a Greek or a Cyrillic
 * street would lose letters. DejaVu covers Latin, Greek and Cyrillic in full. It is registered
 * under the standard names, so a document keeps calling `font('Helvetica-Bold')` and gets DejaVu.
 */
const FACES: Record<string, string> = {
  Helvetica: 'DejaVuSans.ttf',
  'Helvetica-Bold': 'DejaVuSans-Bold.ttf',
  'Helvetica-Oblique': 'DejaVuSans-Oblique.ttf',
  Courier: 'DejaVuSansMono.ttf',
  'Courier-Bold': 'DejaVuSansMono-Bold.ttf',
};

let files: Array<[string, Buffer]> | undefined;
/** Read once per process, on the first document (not at start: most servers make none). */
function faces(): Array<[string, Buffer]> {
  if (!files) {
    const dir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    files = Object.entries(FACES).map(([name, file]) => [name, readFileSync(join(dir, file))]);
  }
  return files;
}

/** Embeds the Unicode faces into `doc` (subset to the letters used) and makes the regular one current. */
export function useUnicodeFonts<T extends PDFKit.PDFDocument>(doc: T): T {
  // pdfkit opened the standard Helvetica as the default and would keep answering `font('Helvetica')`
  // with it; starting its font table anew (nothing is drawn yet) makes the names ours.
  (doc as unknown as { initFonts(defaultFont: null): void }).initFonts(null);
  for (const [name, data] of faces()) doc.registerFont(name, data);
  doc.font('Helvetica');
  return doc;
}

/** Control characters become spaces; every other letter prints as it is written. */
export function printable(s: string | null | undefined): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing them is the point
  return s ? s.replace(/[\u0000-\u001f\u007f]/g, ' ') : '';
}
