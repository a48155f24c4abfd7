import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ShipmentDocInput } from '../../src/modules/production/documents.ts';
import { buildShippingLabel } from '../../src/modules/production/label.ts';
import { inkOn } from '../../src/modules/production/ink.ts';
import { printable } from '../../src/platform/pdf-fonts.ts';
import { buildPackingSlip } from '../../src/modules/production/slip.ts';
import { code128Values, pdfInfo, pdfText, renderPage, popplerMissing } from '../support/pdf-tools.ts';

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

  it('keeps every letter, drops control characters and picks readable ink', () => {
    assert.equal(printable('Łódź Ærøskøbing ő ß'), 'Łódź Ærøskøbing ő ß');
    assert.equal(printable('line\nbreak'), 'line break');
    assert.equal(inkOn('#fafafa'), '#000000');
    assert.equal(inkOn('#0b5fff'), '#ffffff');
  });
});
