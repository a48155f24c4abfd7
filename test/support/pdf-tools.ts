import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

// The decoder's WebAssembly from node_modules: by default it would be fetched from a CDN.
const wasm = createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm');
prepareZXingModule({ overrides: { wasmBinary: readFileSync(wasm).buffer as ArrayBuffer }, fireImmediately: true });

/**
 * CI installs poppler-utils; a fresh machine may not have it. Tests that read PDFs back skip (or leave out just
 * their PDF checks) with this message rather than fail for a reason that is not the code's.
 */
export const popplerMissing: false | string =
  spawnSync('pdftotext', ['-v']).error === undefined ? false : 'poppler-utils is not installed: PDF checks skipped';

/** Keeps a rendered page as test-artifacts/<folder>/<name>.png, to look at what the PDF shows. */
export function keepPage(folder: string, name: string, png: Buffer): Buffer {
  const dir = join('test-artifacts', folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.png`), png);
  return png;
}

/** Runs a poppler tool on the PDF in a scratch folder; `out` names a file it writes there. */
function poppler<T>(pdf: Buffer, run: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-test-'));
  try {
    const file = join(dir, 'in.pdf');
    writeFileSync(file, pdf);
    return run(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text in reading layout; `raw`: in the order it was drawn, each box's lines together. */
export const pdfText = (pdf: Buffer, mode: 'layout' | 'raw' = 'layout'): string =>
  poppler(pdf, (f) => execFileSync('pdftotext', [`-${mode}`, f, '-'], { encoding: 'utf8' }));

export const pdfInfo = (pdf: Buffer): Record<string, string> =>
  poppler(pdf, (f) =>
    Object.fromEntries(
      execFileSync('pdfinfo', [f], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes(':'))
        .map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]),
    ),
  );

/** `pdfimages -list`: each embedded image's pixel size and resolution on the page. */
export const pdfImages = (pdf: Buffer) =>
  poppler(pdf, (f) =>
    execFileSync('pdfimages', ['-list', f], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => {
        const c = l.trim().split(/\s+/);
        return { width: Number(c[3]), height: Number(c[4]), xppi: Number(c[12]), yppi: Number(c[13]) };
      }),
  );

/** Page `page` rendered by pdftoppm at `dpi`, as a PNG (what the tests look at) and raw RGB. */
export function renderPage(pdf: Buffer, dpi: number, page = 1) {
  const png = poppler(pdf, (f, dir) => {
    execFileSync('pdftoppm', [
      '-png',
      '-r',
      String(dpi),
      '-f',
      String(page),
      '-l',
      String(page),
      '-singlefile',
      f,
      join(dir, 'p'),
    ]);
    return readFileSync(join(dir, 'p.png'));
  });
  return png;
}

export async function rawPixels(png: Buffer) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    data,
    width: info.width,
    height: info.height,
    at: (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)],
  };
}

/** Every Code 128 the rendered page carries, decoded by ZXing (an independent reader). */
export async function code128Values(png: Buffer): Promise<string[]> {
  const found = await readBarcodes(new Blob([new Uint8Array(png)]), { formats: ['Code128'], tryHarder: true });
  return found.filter((b) => b.isValid).map((b) => b.text);
}

export interface PdfWord {
  page: number;
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/** Every word poppler finds, with its box in points from the page's top left (`pdftotext -bbox`). */
export function pdfWords(pdf: Buffer): { pages: Array<{ width: number; height: number }>; words: PdfWord[] } {
  const html = poppler(pdf, (f) => execFileSync('pdftotext', ['-bbox', f, '-'], { encoding: 'utf8' }));
  const pages: Array<{ width: number; height: number }> = [];
  const words: PdfWord[] = [];
  const fromHtml = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  for (const m of html.matchAll(
    /<page width="([\d.]+)" height="([\d.]+)">|<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g,
  )) {
    if (m[1]) pages.push({ width: Number(m[1]), height: Number(m[2]) });
    else
      words.push({
        page: pages.length,
        text: fromHtml(m[7]),
        xMin: Number(m[3]),
        yMin: Number(m[4]),
        xMax: Number(m[5]),
        yMax: Number(m[6]),
      });
  }
  return { pages, words };
}

/**
 * Pairs of words whose boxes overlap by more than `tolerance` points both ways (text printed over
 * text), and words reaching outside their page.
 */
export function overprinted(pdf: Buffer, tolerance = 0.5): string[] {
  const { pages, words } = pdfWords(pdf);
  const out: string[] = [];
  for (const w of words) {
    const p = pages[w.page - 1];
    if (w.xMin < -tolerance || w.yMin < -tolerance || w.xMax > p.width + tolerance || w.yMax > p.height + tolerance)
      out.push(`"${w.text}" runs off page ${w.page}`);
  }
  for (const [i, a] of words.entries())
    for (const b of words.slice(i + 1)) {
      if (a.page !== b.page) continue;
      const dx = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);
      const dy = Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin);
      if (dx > tolerance && dy > tolerance) out.push(`"${a.text}" and "${b.text}" overlap on page ${a.page}`);
    }
  return out;
}

/** The names of the fonts a PDF embeds (`pdffonts`), without their subset prefixes. */
export const pdfFonts = (pdf: Buffer): string[] =>
  poppler(pdf, (f) => execFileSync('pdffonts', [f], { encoding: 'utf8' }))
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => l.split(/\s+/)[0].replace(/^[A-Z]{6}\+/, ''));
