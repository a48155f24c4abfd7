import { type Face, type Letter, embedded, fontLetters, letterWidth, printable } from './pdf-fonts.ts';

export interface TextStyle {
  /** One of the Unicode faces; letters it lacks come from the CJK faces. Default `Helvetica`. */
  font?: Face;
  size: number;
  /** Fill colour; the document's current one when left out. */
  color?: string;
  lineGap?: number;
  align?: 'left' | 'center' | 'right';
}

export interface BoxOptions extends TextStyle {
  x: number;
  y: number;
  width: number;
  /** The most the block may take: lines past it are cut, the last one kept ending in an ellipsis. */
  height?: number;
  maxLines?: number;
  /** The type shrinks in half points down to this size before anything is cut. */
  minSize?: number;
}

interface Cell extends Letter {
  w: number;
}

/** A block laid out: the size it took, its lines and its height. `cut` when text was left out. */
export interface Laid {
  size: number;
  lineCount: number;
  height: number;
  cut: boolean;
  lines: Cell[][];
  pitch: number;
}

interface Token {
  cells: Cell[];
  space: boolean;
  opens?: boolean;
}
const OPENING = /[\p{Ps}\p{Pi}]$/u;
const HYPHENATED = /\p{L}[-\u2010\u2013\u2014]$/u;
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const words = new Intl.Segmenter('und', { granularity: 'word' });
const letters = new Intl.Segmenter('und', { granularity: 'grapheme' });
const widthOf = (cells: Cell[]) => cells.reduce((s, c) => s + c.w, 0);
const trimEnd = (cells: Cell[]) => {
  let n = cells.length;
  while (n && /^\s$/.test(cells[n - 1].text)) n--;
  return cells.slice(0, n);
};

/**
 * The paragraph's cells in tokens: words (punctuation kept with the word before it, so no line starts
 * with a comma or a full stop) and the spaces between them. CJK text breaks between its words.
 */
function tokens(text: string, cells: Cell[]): Token[] {
  const out: Token[] = [];
  let at = 0;
  for (const seg of words.segment(text)) {
    const n = [...letters.segment(seg.segment)].length;
    const part = cells.slice(at, at + n);
    at += n;
    const space = /^\s+$/.test(seg.segment);
    const prev = out[out.length - 1];
    const before = prev && !prev.space ? prev.cells.map((c) => c.text).join('') : null;
    // A line may break at spaces, after a hyphen that follows a letter, and between CJK words; not
    // inside "https://example.com", "150-0001" or "a/b".
    const breaks = before !== null && (HYPHENATED.test(before) || CJK.test(before.slice(-1)) || CJK.test(seg.segment));
    if (!space && before !== null && (prev.opens || !seg.isWordLike || !breaks)) prev.cells.push(...part);
    else out.push({ cells: part, space });
    // An opening bracket or quote stays with the word after it.
    if (!space) out[out.length - 1].opens = OPENING.test(seg.segment);
  }
  return out;
}

/** Greedy line filling; a word wider than the line is broken between its letters. */
function breakParagraph(cells: Cell[], text: string, width: number): Cell[][] {
  const lines: Cell[][] = [];
  let line: Cell[] = [];
  let pending: Cell[] = [];
  for (const t of tokens(text, cells)) {
    if (t.space) {
      if (line.length) pending = t.cells;
      continue;
    }
    if (widthOf(line) + widthOf(pending) + widthOf(t.cells) <= width) {
      line.push(...pending, ...t.cells);
      pending = [];
      continue;
    }
    // The space the line wrapped at stays at its end (not drawn): an ellipsis can tell a wrap from a broken word.
    if (line.length) lines.push([...line, ...pending]);
    pending = [];
    line = [];
    for (const c of t.cells) {
      if (line.length && widthOf(line) + c.w > width) {
        lines.push(line);
        line = [];
      }
      line.push(c);
    }
  }
  if (line.length || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * The last line kept, when text is cut: filled up with the start of what follows in its paragraph
 * (letter by letter, so a long word is not dropped whole), then an ellipsis.
 */
function ellipsize(doc: PDFKit.PDFDocument, cells: Cell[], face: Face, size: number, width: number): Cell[] {
  const dots: Cell = { text: '…', font: face, w: letterWidth(doc, face, '…', size) };
  const out: Cell[] = [];
  let used = dots.w;
  for (const c of cells) {
    if (used + c.w > width) break;
    out.push(c);
    used += c.w;
  }
  return [...trimEnd(out), dots];
}

function layoutAt(doc: PDFKit.PDFDocument, paragraphs: string[], o: BoxOptions, size: number): Laid {
  const face = o.font ?? 'Helvetica';
  const f = embedded(doc, face);
  const gap = o.lineGap ?? 0;
  const pitch = ((f.ascender - f.descender) / 1000) * size + gap;
  const fit = o.height === undefined ? Number.POSITIVE_INFINITY : Math.floor((o.height + gap + 0.01) / pitch);
  const limit = Math.max(1, Math.min(o.maxLines ?? Number.POSITIVE_INFINITY, fit));
  const lines: Array<{ cells: Cell[]; para: number }> = [];
  for (const [para, p] of paragraphs.entries()) {
    const cells = fontLetters(doc, p, face).map((l) => ({ ...l, w: letterWidth(doc, l.font, l.text, size) }));
    for (const line of breakParagraph(cells, p, o.width)) lines.push({ cells: line, para });
    if (lines.length > limit) break;
  }
  const cut = lines.length > limit;
  if (cut) {
    const last = lines[limit - 1];
    const next = lines[limit].para === last.para ? lines[limit].cells : [];
    last.cells = ellipsize(doc, [...last.cells, ...next], face, size, o.width);
    lines.length = limit;
  }
  const kept = lines.map((l) => trimEnd(l.cells));
  return { size, lineCount: kept.length, height: kept.length * pitch - gap, cut, lines: kept, pitch };
}

/**
 * `text` laid out in the box without drawing it: in `size`, or the largest size down to `minSize`
 * at which nothing is cut. Lines are the string's own (`\n`) or the array's items.
 */
export function layoutText(doc: PDFKit.PDFDocument, text: string | string[], o: BoxOptions): Laid {
  const paragraphs = (Array.isArray(text) ? text : text.split('\n')).map(printable);
  let size = o.size;
  for (;;) {
    const laid = layoutAt(doc, paragraphs, o, size);
    if (!laid.cut || size - 0.5 < (o.minSize ?? o.size)) return laid;
    size -= 0.5;
  }
}

/** Draws what `layoutText` laid out: each run of letters in its own font, on one baseline per line. */
export function drawLaid(doc: PDFKit.PDFDocument, laid: Laid, o: BoxOptions): void {
  const face = o.font ?? 'Helvetica';
  const ascender = (embedded(doc, face).ascender / 1000) * laid.size;
  if (o.color) doc.fillColor(o.color);
  for (const [i, line] of laid.lines.entries()) {
    const free = o.width - widthOf(line);
    let x = o.x + (o.align === 'center' ? free / 2 : o.align === 'right' ? free : 0);
    const baseline = o.y + i * laid.pitch + ascender;
    for (let at = 0; at < line.length; ) {
      let end = at + 1;
      while (end < line.length && line[end].font === line[at].font) end++;
      const run = line.slice(at, end);
      doc
        .font(run[0].font)
        .fontSize(laid.size)
        .text(run.map((c) => c.text).join(''), x, baseline, { lineBreak: false, baseline: 'alphabetic' });
      x += widthOf(run);
      at = end;
    }
  }
  doc.font(face).fontSize(laid.size);
}

/**
 * Every piece of text a document prints goes through here: it stays inside its box (`width`, and
 * `height` or `maxLines`), long words are broken, and what does not fit ends in an ellipsis.
 * Returns the layout, whose `height` is what the block took.
 */
export function textBox(doc: PDFKit.PDFDocument, text: string | string[], o: BoxOptions): Laid {
  const laid = layoutText(doc, text, o);
  drawLaid(doc, laid, o);
  return laid;
}

/** The lines `text` takes in the box, cut as `textBox` would cut them, as plain strings. */
export function fitLines(doc: PDFKit.PDFDocument, text: string | string[], o: BoxOptions): string[] {
  return layoutText(doc, text, o).lines.map((l) => l.map((c) => c.text).join(''));
}
