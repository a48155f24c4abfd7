import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import { fontLetters, unprintedScript, useUnicodeFonts } from '../../src/platform/pdf-fonts.ts';
import { layoutText } from '../../src/platform/pdf-text.ts';

const doc = useUnicodeFonts(new PDFDocument({ size: 'A4', margin: 0 }));
const text = (line: Array<{ text: string }>) => line.map((c) => c.text).join('');
const width = (line: Array<{ w: number }>) => line.reduce((s, c) => s + c.w, 0);

describe('text boxes', () => {
  it('breaks long words, stays within its width and lines, and ends what it cuts in an ellipsis', () => {
    const box = { x: 0, y: 0, width: 100, size: 10 };
    const word = 'Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch';
    const all = layoutText(doc, `${word} ${word}`, box);
    assert.ok(all.lineCount >= 4 && !all.cut);
    assert.equal(all.lines.map(text).join(''), word + word, 'every letter, in order, the space at the wrap left out');
    for (const line of all.lines) assert.ok(width(line) <= 100, text(line));

    const two = layoutText(doc, `${word} ${word}`, { ...box, maxLines: 2 });
    assert.equal(two.lineCount, 2);
    assert.ok(two.cut);
    assert.ok(text(two.lines[1]).endsWith('…'));
    assert.ok(width(two.lines[1]) <= 100);

    const high = layoutText(doc, Array(20).fill('line'), { ...box, height: 50 });
    assert.ok(high.height <= 50 && high.cut, `${high.height}`);
    assert.equal(text(high.lines[high.lineCount - 1]), 'line…');
  });

  it('shrinks the type down to minSize before it cuts, and cuts a long name letter by letter', () => {
    const box = { x: 0, y: 0, width: 120, size: 14, minSize: 8, maxLines: 1 };
    const fits = layoutText(doc, 'A name that shrinks', box);
    assert.ok(!fits.cut && fits.size < 14 && fits.size >= 8, `${fits.size}`);
    const cut = layoutText(doc, `Short ${'x'.repeat(200)}`, box);
    assert.ok(cut.cut && cut.size === 8);
    assert.match(text(cut.lines[0]), /^Short x+…$/, 'the long word fills the line before the ellipsis');
  });

  it('keeps an opening bracket with the word after it, and punctuation with the word before it', () => {
    const laid = layoutText(doc, 'Account: Demo account (Account_01jabcdefghjkmnpqrstvwxyz)', {
      x: 0,
      y: 0,
      width: 220,
      size: 10,
    });
    assert.deepEqual(laid.lines.map(text), ['Account: Demo account', '(Account_01jabcdefghjkmnpqrstvwxyz)']);
    const url = layoutText(doc, 'Contact us at https://democases.example or 150-0001 Müller-Lüdenscheidt', {
      x: 0,
      y: 0,
      width: 170,
      size: 10,
    }).lines.map(text);
    for (const whole of ['https://democases.example', '150-0001'])
      assert.ok(
        url.some((l) => l.includes(whole)),
        `${whole} kept on one line: ${url.join(' | ')}`,
      );
    const name = layoutText(doc, 'Müller-Lüdenscheidt', { x: 0, y: 0, width: 60, size: 10 }).lines.map(text);
    assert.equal(name[0], 'Müller-', 'a hyphenated name breaks after its hyphen');
  });

  it('has a glyph for every letter of every script it accepts, in both weights', () => {
    const samples = [
      'Łódź Ærøskøbing ő ß Việt Nam',
      'Ἀθῆναι Οδός Ερμού',
      'улица Пушкина',
      'Երևան',
      'თბილისი',
      '東京都渋谷区神宮前 込 畑',
      'ひらがな カタカナ ｶﾀｶﾅ',
      '서울특별시 강남구',
      '北京市朝阳区 臺灣 龍',
      'ㄅㄆㄇ',
      '〒150-0001 １２３ －',
    ];
    for (const s of samples) {
      assert.equal(unprintedScript(s), null, s);
      for (const face of ['Helvetica', 'Helvetica-Bold'] as const)
        assert.deepEqual(
          fontLetters(doc, s, face).filter((l) => l.text === '?'),
          [],
          `${s} in ${face}`,
        );
    }
    assert.equal(unprintedScript('شارع'), 'Arabic');
    assert.equal(unprintedScript('Tel Aviv תל אביב'), 'Hebrew');
    assert.equal(unprintedScript('नई दिल्ली'), 'Devanagari');
  });
});
