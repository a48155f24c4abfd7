import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The standard PDF fonts encode WinAnsi only: a name like "Łukasz Żółć", a Greek or a Cyrillic
 * street would lose letters. DejaVu covers Latin, Greek, Cyrillic, Armenian and Georgian. It is
 * registered under the standard names, so a document keeps calling `font('Helvetica-Bold')` and gets DejaVu.
 */
const FACES = {
  Helvetica: 'DejaVuSans.ttf',
  'Helvetica-Bold': 'DejaVuSans-Bold.ttf',
  'Helvetica-Oblique': 'DejaVuSans-Oblique.ttf',
  Courier: 'DejaVuSansMono.ttf',
  'Courier-Bold': 'DejaVuSansMono-Bold.ttf',
} as const;
export type Face = keyof typeof FACES;

/**
 * Chinese, Japanese and Korean, which DejaVu lacks: Noto Sans in its regional subsets. Each file is
 * 4-9 MB, so they are registered by path and read only by a document that prints one of their letters.
 */
const CJK = {
  jp: { pkg: '@embedpdf/fonts-jp', regular: 'NotoSansJP-Regular.otf', bold: 'NotoSansJP-Bold.otf' },
  kr: { pkg: '@embedpdf/fonts-kr', regular: 'NotoSansKR-Regular.otf', bold: 'NotoSansKR-Bold.otf' },
  sc: { pkg: '@embedpdf/fonts-sc', regular: 'NotoSansHans-Regular.otf', bold: 'NotoSansHans-Bold.otf' },
} as const;
type Cjk = keyof typeof CJK;

/**
 * Han characters are drawn differently in Japan, Korea and China: the destination's own forms come
 * first, the other faces only supply what it lacks (Hangul, simplified characters).
 */
function cjkOrder(countryCode: string | undefined): Cjk[] {
  if (countryCode === 'KR') return ['kr', 'jp', 'sc'];
  if (countryCode && ['CN', 'TW', 'HK', 'MO', 'SG'].includes(countryCode)) return ['sc', 'jp', 'kr'];
  return ['jp', 'sc', 'kr'];
}

let files: Array<[string, Buffer]> | undefined;
/** Read once per process, on the first document (not at start: most servers make none). */
function faces(): Array<[string, Buffer]> {
  if (!files) {
    const dir = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    files = Object.entries(FACES).map(([name, file]) => [name, readFileSync(join(dir, file))]);
  }
  return files;
}

const cjkFile = (c: Cjk, weight: 'regular' | 'bold') =>
  join(dirname(require.resolve(CJK[c].pkg)), '..', 'fonts', CJK[c][weight]);

/** pdfkit's embedded font: its fontkit font, metrics in 1/1000 em, and widths. */
interface Embedded {
  font: { hasGlyphForCodePoint(cp: number): boolean };
  ascender: number;
  descender: number;
  widthOfString(s: string, size: number): number;
}
interface Fonts {
  cjk: Cjk[];
  embedded: Map<string, Embedded>;
  /** Advance of a letter at 1 pt, by font name and letter. */
  widths: Map<string, number>;
}
const state = new WeakMap<PDFKit.PDFDocument, Fonts>();

/**
 * Embeds the Unicode faces into `doc` (subset to the letters used) and makes the regular one current.
 * `countryCode` (the destination's) chooses which regional forms Han characters take.
 */
export function useUnicodeFonts<T extends PDFKit.PDFDocument>(doc: T, opts: { countryCode?: string } = {}): T {
  // pdfkit opened the standard Helvetica as the default and would keep answering `font('Helvetica')`
  // with it; starting its font table anew (nothing is drawn yet) makes the names ours.
  (doc as unknown as { initFonts(defaultFont: null): void }).initFonts(null);
  for (const [name, data] of faces()) doc.registerFont(name, data);
  for (const c of Object.keys(CJK) as Cjk[]) {
    doc.registerFont(`cjk-${c}`, cjkFile(c, 'regular'));
    doc.registerFont(`cjk-${c}-bold`, cjkFile(c, 'bold'));
  }
  state.set(doc, { cjk: cjkOrder(opts.countryCode), embedded: new Map(), widths: new Map() });
  doc.font('Helvetica');
  return doc;
}

function fontsOf(doc: PDFKit.PDFDocument): Fonts {
  const s = state.get(doc);
  if (!s) throw new Error('useUnicodeFonts(doc) first');
  return s;
}

/** The embedded font `name`, opened without changing the document's current font. */
export function embedded(doc: PDFKit.PDFDocument, name: string): Embedded {
  const s = fontsOf(doc);
  let f = s.embedded.get(name);
  if (!f) {
    const d = doc as unknown as { _font: Embedded };
    const current = d._font;
    doc.font(name);
    f = d._font;
    d._font = current;
    s.embedded.set(name, f);
  }
  return f;
}

/** The width of one letter (grapheme) in `font` at `size`; kerning between letters is left out. */
export function letterWidth(doc: PDFKit.PDFDocument, font: string, letter: string, size: number): number {
  const s = fontsOf(doc);
  const key = `${font}\u0000${letter}`;
  let w = s.widths.get(key);
  if (w === undefined) {
    w = embedded(doc, font).widthOfString(letter, 1);
    s.widths.set(key, w);
  }
  return w * size;
}

const has = (f: Embedded, letter: string) => {
  for (const ch of letter) if (!f.font.hasGlyphForCodePoint(ch.codePointAt(0)!)) return false;
  return true;
};

export interface Letter {
  text: string;
  font: string;
}

// A grapheme segmenter loads ICU's break rules (~70 ms): the first document with text pays it, not the start.
let graphemes: Intl.Segmenter | undefined;

/**
 * `text` (already `printable`) as letters, each with the font that draws it: the face itself where
 * DejaVu has it, else one CJK face for the whole paragraph where one has all its letters (no mix of
 * Japanese and Chinese forms in one line), else the first that has the letter; none has it: `?`.
 */
export function fontLetters(doc: PDFKit.PDFDocument, text: string, face: Face): Letter[] {
  const own = embedded(doc, face);
  const out: Letter[] = [];
  const missing: number[] = [];
  graphemes ??= new Intl.Segmenter('und', { granularity: 'grapheme' });
  for (const { segment } of graphemes.segment(text)) {
    if (!has(own, segment)) missing.push(out.length);
    out.push({ text: segment, font: face });
  }
  if (missing.length === 0) return out;
  const bold = face.endsWith('-Bold') ? '-bold' : '';
  const names = fontsOf(doc).cjk.map((c) => `cjk-${c}${bold}`);
  const whole = names.find((n) => missing.every((i) => has(embedded(doc, n), out[i].text)));
  for (const i of missing) {
    const name = whole ?? names.find((n) => has(embedded(doc, n), out[i].text));
    out[i] = name ? { text: out[i].text, font: name } : { text: '?', font: face };
  }
  return out;
}

/**
 * What the faces above draw: scripts written left to right whose letters need no shaping. Arabic and
 * Hebrew (right to left) and the Indic and South-East Asian scripts (shaped) are not among them.
 * Common covers digits, punctuation and symbols; Inherited the combining accents.
 */
const NOT_PRINTED = new RegExp(
  `[^${['Latin', 'Greek', 'Cyrillic', 'Armenian', 'Georgian', 'Han', 'Hiragana', 'Katakana', 'Hangul', 'Bopomofo', 'Common', 'Inherited'].map((s) => `\\p{Script=${s}}`).join('')}]`,
  'u',
);
const NAMED = ['Arabic', 'Hebrew', 'Syriac', 'Thaana', 'Thai', 'Lao', 'Khmer', 'Myanmar', 'Devanagari', 'Bengali']
  .concat(['Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala', 'Tibetan'])
  .concat(['Mongolian', 'Ethiopic', 'Cherokee', 'Tifinagh']);

/**
 * The script of the first letter in `text` that documents cannot print (`Arabic`, `Thai`…, or the
 * code point), or null when every letter prints.
 */
export function unprintedScript(text: string): string | null {
  const m = NOT_PRINTED.exec(text);
  if (!m) return null;
  const name = NAMED.find((n) => new RegExp(`\\p{Script=${n}}`, 'u').test(m[0]));
  return name ?? `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

// Whole emoji (with their skin tones, joiners, flags and keycaps) first, then stray pieces of them.
// The emoji sets take V8 ~20-40 ms to build: the first text made printable pays it, not the start.
let emoji: RegExp | undefined;
const emojiPattern = () => {
  emoji ??= new RegExp('\\p{RGI_Emoji}|\\p{Emoji_Presentation}|\\p{Regional_Indicator}', 'gv');
  return emoji;
};
const EMOJI_PARTS = /[\u20e3\ufe00-\ufe0f\u{1f3fb}-\u{1f3ff}\u{e0100}-\u{e01ef}]/gu;

/**
 * Text as documents print it: control characters and line separators become spaces; format
 * characters (`\p{Cf}`: bidi overrides and isolates, zero-width joiners, soft hyphens, tags) go, so
 * nothing printed is reordered or hidden; emoji go (no carrier or sorting machine reads a picture,
 * and a thermal printer has no colour); spaces are collapsed.
 */
export function printable(s: string | null | undefined): string {
  if (!s) return '';
  return (
    s
      .replace(/\p{Cs}/gu, '?')
      .normalize('NFC')
      .replace(emojiPattern(), ' ')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing them is the point
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
      .replace(/\p{Cf}/gu, '')
      .replace(EMOJI_PARTS, '')
      .replace(/\s{2,}/g, ' ')
      .trim()
  );
}
