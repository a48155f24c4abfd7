import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ShipmentDocInput } from '../../src/modules/production/documents.ts';
import { buildShippingLabel } from '../../src/modules/production/label.ts';
import { inkOn } from '../../src/modules/production/ink.ts';
import { printable } from '../../src/platform/pdf-fonts.ts';
import { buildPackingSlip } from '../../src/modules/production/slip.ts';
import {
  code128Values,
  overprinted,
  pdfFonts,
  pdfInfo,
  pdfText,
  pdfWords,
  popplerMissing,
  renderPage,
} from '../support/pdf-tools.ts';

const at = new Date('2026-11-24T10:00:00Z');
const long = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);

function input(lines: number): ShipmentDocInput {
  return {
    brand: {
      name: 'Pale Brand',
      primaryColor: '#fafafa',
      secondaryColor: '#111111',
      logo: null,
      customerService: { email: null, phonenumber: '+44 20 7946 0000', url: null },
    },
    returnAddress: ['c/o Factory', 'Dock 4', '1000 AA Amsterdam', 'NL'],
    destination: {
      company: long('Company With A Very Long Name ', 50),
      firstname: long('Firstname', 50),
      lastname: long('Lastname', 50),
      streetname: long('Street Of Many Words ', 60),
      housenumber: '1234567890',
      housenumberAddition: 'bis',
      additionalInfo: long('Floor 3, ring twice, leave with neighbour ', 60),
      zipcode: 'SW1A 1AA',
      city: long('Llanfairpwllgwyngyll', 50),
      state: long('State', 50),
      countryCode: 'GB',
    },
    shipment: {
      reference: 'Shipment_0123456789abcdefghjkmnpqrs',
      carrier: 'Royal Mail',
      trackingNumber: 'RM123456789GB',
      level: 'express',
      shippedAt: at,
      weightGrams: 1234,
    },
    orders: [
      {
        code: 'SHOP-77',
        customIdentifier: null,
        lines: Array.from({ length: lines }, (_, i) => ({
          index: i + 1,
          name: `Product number ${i + 1} with a name long enough to wrap onto a second line of the table`,
          quantity: (i % 3) + 1,
          sku: `SKU-${i + 1}`,
        })),
      },
    ],
  };
}

/**
 * The worst a label gets: a 200-character brand (one unbreakable word, then words), every address
 * field at its length limit in words too long for a line, a long carrier, many orders, a 2000-character URL.
 */
function worst(): ShipmentDocInput {
  const doc = input(4);
  doc.brand = {
    ...doc.brand,
    name: `${long('Brandnamewithoutanyspaces', 120)} ${long('and then some words ', 79)}`,
    customerService: {
      email: `${long('x', 240)}@example.com`,
      phonenumber: '+44 20 7946 0000 0000000',
      url: `https://${long('averylongpath/', 1990)}`,
    },
  };
  doc.destination = {
    company: long('CompanyWithAVeryLongName', 50),
    firstname: long('Firstname', 50),
    lastname: long('Lastname', 50),
    streetname: long('StreetOfManyWords', 60),
    housenumber: '1234567890',
    housenumberAddition: 'bisbisbisb',
    additionalInfo: long('Floor3ringtwiceleavewithneighbour', 60),
    zipcode: 'SW1A 1AA 123',
    city: long('Llanfairpwllgwyngyll', 50),
    state: long('State', 50),
    countryCode: 'GB',
  };
  doc.shipment = { ...doc.shipment, carrier: long('Carrier with a long name ', 80), weightGrams: 123_456 };
  doc.orders = Array.from({ length: 12 }, (_, o) => ({
    code: `LONGSTORECODE1234567-${100_000 + o}`,
    customIdentifier: long('custom-id-', 50),
    lines: doc.orders[0].lines.map((l) => ({
      ...l,
      name: long('Productnamewithoutbreaks', 200),
      sku: long('SKU', 60),
    })),
  }));
  return doc;
}

describe('shipment documents', () => {
  it('a long slip continues on a second page with every line', { skip: popplerMissing }, async () => {
    const slip = await buildPackingSlip(input(30), at);
    assert.equal(pdfInfo(slip).Pages, '2', 'continued on a second page');
    const text = pdfText(slip);
    for (let i = 1; i <= 30; i++) assert.ok(text.includes(`SKU-${i}`), `line ${i} is listed`);
    assert.ok(text.includes('60 items in this parcel'));
    assert.ok(text.includes('+44 20 7946 0000'), 'the contact given is printed');
  });

  it('a label keeps the whole of the longest address on one page, and its barcode reads', {
    skip: popplerMissing,
  }, async () => {
    const doc = input(1);
    const label = await buildShippingLabel(doc, at);
    assert.equal(pdfInfo(label).Pages, '1');
    const text = pdfText(label).replace(/\s+/g, ' ');
    for (const part of ['SW1A 1AA', 'UNITED KINGDOM', '1234567890bis', 'EXPRESS', 'Royal Mail'])
      assert.ok(text.includes(part), `label shows ${part}:\n${text}`);
    assert.deepEqual(await code128Values(renderPage(label, 200)), ['RM123456789GB']);
  });

  it('prints names and streets beyond Western Europe with every letter, on the label and the slip', {
    skip: popplerMissing,
  }, async () => {
    const doc = input(1);
    doc.destination = {
      ...doc.destination,
      company: 'Müller-Lüdenscheidt GmbH',
      firstname: 'Łukasz',
      lastname: 'Żółć',
      streetname: 'Οδός Ερμού',
      housenumber: '12',
      housenumberAddition: '',
      additionalInfo: 'улица Пушкина',
      city: 'Αθήνα',
      state: '',
      countryCode: 'GR',
    };
    const want = ['Müller-Lüdenscheidt', 'Łukasz Żółć', 'Οδός Ερμού', 'улица Пушкина', 'Αθήνα'];
    for (const [what, pdf] of [
      ['label', await buildShippingLabel(doc, at)],
      ['slip', await buildPackingSlip(doc, at)],
    ] as const) {
      const text = pdfText(pdf).replace(/\s+/g, ' ');
      for (const part of want) assert.ok(text.includes(part), `${what} shows ${part}:\n${text}`);
    }
  });

  it('a label with the worst inputs is one page, its text inside its boxes and none printed over other text', {
    skip: popplerMissing,
  }, async () => {
    const label = await buildShippingLabel(worst(), at);
    assert.equal(pdfInfo(label).Pages, '1');
    assert.deepEqual(overprinted(label), []);
    const text = pdfText(label).replace(/\s+/g, ' ');
    for (const part of ['UNITED KINGDOM', 'SW1A 1AA 123', 'EXPRESS', 'RM123456789GB', 'c/o Factory', 'NETHERLANDS'])
      assert.ok(text.includes(part), `label shows ${part}:\n${text}`);
    assert.ok(text.includes('Brandnamewithoutanyspaces'), 'the brand is there, cut');
    assert.ok(text.includes('…'), 'what is cut ends in an ellipsis');
    assert.deepEqual(await code128Values(renderPage(label, 200)), ['RM123456789GB']);
    // The recipient's block sits between the two thick rules, below the return address.
    const { words } = pdfWords(label);
    const country = words.find((w) => w.text === 'KINGDOM')!;
    const factory = words.find((w) => w.text === 'Factory')!;
    assert.ok(factory.yMax < country.yMin, 'the return address is above the recipient');
    assert.ok(country.yMax < (96 * 72) / 25.4, 'the country ends above the barcode block');
  });

  it('a slip with the worst inputs lists every line on as many pages as it takes, nothing printed over anything', {
    skip: popplerMissing,
  }, async () => {
    const slip = await buildPackingSlip(worst(), at);
    assert.deepEqual(overprinted(slip), []);
    const drawn = pdfText(slip, 'raw').replace(/\s+/g, '');
    for (let o = 0; o < 12; o++) {
      const rows = drawn.split(`LONGSTORECODE1234567-${100_000 + o}`).length - 1;
      assert.ok(rows >= 4, `order ${o}: its 4 rows are listed (${rows})`);
    }
    assert.ok(pdfText(slip).includes('84 items in this parcel'));
  });

  it('prints Chinese, Japanese and Korean addresses in Noto Sans, as post there reads them', {
    skip: popplerMissing,
  }, async () => {
    const jp = input(1);
    jp.brand.name = 'ケース屋さん';
    jp.destination = {
      company: '株式会社テスト',
      firstname: '太郎',
      lastname: '山田',
      streetname: '神宮前1丁目2-3',
      additionalInfo: 'パークハウス101号室',
      zipcode: '150-0001',
      city: '渋谷区',
      state: '東京都',
      countryCode: 'JP',
    };
    const label = await buildShippingLabel(jp, at);
    assert.equal(pdfInfo(label).Pages, '1');
    assert.deepEqual(overprinted(label, 3), []);
    const lines = pdfText(label)
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const at_ = (s: string) => lines.findIndex((l) => l.includes(s));
    for (const part of [
      '〒150-0001',
      '東京都 渋谷区',
      '神宮前1丁目2-3',
      '株式会社テスト',
      '山田 太郎',
      'JAPAN',
      'ケース屋さん',
    ])
      assert.ok(at_(part) >= 0, `label shows ${part}:\n${lines.join('\n')}`);
    assert.ok(at_('〒150-0001') < at_('山田 太郎') && at_('山田 太郎') < at_('JAPAN'), 'postcode first, country last');
    assert.ok(pdfFonts(label).includes('NotoSansJP-Bold'), pdfFonts(label).join());

    const kr = input(1);
    kr.destination = {
      firstname: '민수',
      lastname: '김',
      streetname: '테헤란로 123',
      city: '강남구',
      state: '서울특별시',
      zipcode: '06133',
      countryCode: 'KR',
    };
    const cn = input(1);
    cn.destination = {
      firstname: '伟',
      lastname: '王',
      streetname: '建国路88号',
      city: '朝阳区',
      state: '北京市',
      zipcode: '100022',
      countryCode: 'CN',
    };
    for (const [doc, want, font] of [
      [kr, ['서울특별시 강남구', '김민수'], 'NotoSansKR-Bold'],
      [cn, ['北京市 朝阳区', '王伟'], 'NotoSansHans-Bold'],
    ] as const) {
      for (const pdf of [await buildShippingLabel(doc, at), await buildPackingSlip(doc, at)]) {
        const text = pdfText(pdf);
        for (const part of want) assert.ok(text.includes(part), `shows ${part}:\n${text}`);
        assert.ok(
          pdfFonts(pdf).some((f) => f.startsWith(font.replace('-Bold', ''))),
          pdfFonts(pdf).join(),
        );
      }
    }
  });

  it('leaves format characters and emoji out of printed text', { skip: popplerMissing }, async () => {
    const doc = input(1);
    doc.brand.name = 'Bloom 🌸 Cases';
    doc.destination = {
      ...doc.destination,
      company: '',
      firstname: 'Anna\u202Eesrever\u202C',
      lastname: 'Jansen 👩‍👩‍👧‍👦',
      streetname: '\u2067Keizersgracht\u2069',
      additionalInfo: 'Flat 3 🏠 ring\u00ADtwice 🇳🇱',
    };
    for (const pdf of [await buildShippingLabel(doc, at), await buildPackingSlip(doc, at)]) {
      const text = pdfText(pdf);
      for (const part of ['Annaesrever Jansen', 'Keizersgracht 1234567890bis', 'Flat 3 ringtwice', 'Bloom Cases'])
        assert.ok(text.replace(/\s+/g, ' ').includes(part), `shows ${part}:\n${text}`);
      assert.doesNotMatch(text, /[\p{Cf}\u{1F300}-\u{1FAFF}\u{1F1E6}-\u{1F1FF}]/u);
    }
  });

  it('keeps every letter, drops control characters and picks readable ink', () => {
    assert.equal(printable('Łódź Ærøskøbing ő ß'), 'Łódź Ærøskøbing ő ß');
    assert.equal(printable('line\nbreak'), 'line break');
    assert.equal(printable('a\u202Eb\u202Cc\u200Bd\u2066e\u2069'), 'abcde');
    assert.equal(printable('Flat 3 🏠 Main 👍🏽 St ❤️ 1️⃣ 🇯🇵'), 'Flat 3 Main St');
    assert.equal(printable('Café® ©2026 ™ ★'), 'Café® ©2026 ™ ★', 'symbols in text presentation stay');
    assert.equal(printable('東京都 ﾃｽﾄ 한국'), '東京都 ﾃｽﾄ 한국');
    assert.equal(inkOn('#fafafa'), '#000000');
    assert.equal(inkOn('#0b5fff'), '#ffffff');
  });
});
