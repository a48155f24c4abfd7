import type { Address } from '../shipping/address.ts';
import { printable } from '../../platform/pdf-fonts.ts';
import { drawLaid, layoutText } from '../../platform/pdf-text.ts';
import { MM, inkOn } from './ink.ts';

/** Everything a shipment's label and packing slip print, gathered by the job before drawing. */
export interface ShipmentDocInput {
  brand: {
    name: string;
    primaryColor: string;
    secondaryColor: string;
    /** PNG or JPEG bytes, or null: the brand name is set in its colours instead. */
    logo: Buffer | null;
    customerService: { email?: string | null; phonenumber?: string | null; url?: string | null };
  };
  /** Lines of the return address, the country code last. */
  returnAddress: string[];
  destination: Address;
  shipment: {
    reference: string;
    carrier: string | null;
    trackingNumber: string | null;
    level: string;
    shippedAt: Date;
    weightGrams: number;
  };
  orders: Array<{
    code: string;
    customIdentifier: string | null;
    lines: Array<{ index: number; name: string; quantity: number; sku: string }>;
  }>;
}

const regions = new Intl.DisplayNames(['en'], { type: 'region' });
export const countryName = (code: string | undefined) => {
  if (!code) return '';
  try {
    return (regions.of(code) ?? code).toUpperCase();
  } catch {
    return code;
  }
};

const EAST_ASIAN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * An address as carriers want it printed: name, street, extra, postcode and city, country. One
 * written in Chinese, Japanese or Korean for its own country is printed as post there reads it: from
 * the postcode and region down to the street, then the company and the name, family name first.
 * The country is always last, in English capitals, for the carriers on the way.
 */
export function addressLines(a: Address, withCountry = true): string[] {
  const street = [a.streetname, [a.housenumber, a.housenumberAddition].filter(Boolean).join('')]
    .filter(Boolean)
    .join(' ');
  const local =
    ['JP', 'KR', 'CN', 'TW', 'HK', 'MO'].includes(a.countryCode ?? '') &&
    EAST_ASIAN.test([a.company, a.firstname, a.lastname, a.streetname, a.city, a.state].join(''));
  const lines = local
    ? [
        a.zipcode && (a.countryCode === 'JP' ? `〒${a.zipcode}` : a.zipcode),
        [a.state, a.city].filter(Boolean).join(' '),
        street,
        a.additionalInfo,
        a.company,
        // Japanese names keep a space between family and given name; Chinese and Korean ones do not.
        [a.lastname, a.firstname].filter(Boolean).join(a.countryCode === 'JP' ? ' ' : ''),
      ]
    : [
        a.company,
        [a.firstname, a.lastname].filter(Boolean).join(' '),
        street,
        a.additionalInfo,
        [a.zipcode, a.city].filter(Boolean).join(' '),
        a.state,
      ];
  if (withCountry) lines.push(countryName(a.countryCode));
  return lines.filter((l): l is string => !!l && l.trim() !== '').map(printable);
}

export function returnLines(input: ShipmentDocInput): string[] {
  const lines = [...input.returnAddress];
  const country = lines.pop()!;
  return [`${input.brand.name} returns`, ...lines, countryName(country)].map(printable);
}

/**
 * What the barcode carries: the carrier's tracking number, or for untracked post the shipment's own
 * id without its `Shipment_` prefix (the whole reference would make bars too thin for a 203 dpi printer).
 */
export function barcodeValue(input: ShipmentDocInput): { value: string; label: string } {
  const t = input.shipment.trackingNumber;
  return t
    ? { value: t, label: 'Tracking number' }
    : { value: input.shipment.reference.replace(/^Shipment_/, ''), label: 'Shipment' };
}

/** The brand's head: a band in its primary colour with the logo (or its name) in the readable ink. */
export function brandBand(
  doc: PDFKit.PDFDocument,
  input: ShipmentDocInput,
  x: number,
  y: number,
  w: number,
  h: number,
) {
  const { brand } = input;
  doc.save();
  doc.rect(x, y, w, h).fill(brand.primaryColor);
  const ink = inkOn(brand.primaryColor);
  const pad = 3 * MM;
  let textX = x + pad;
  if (brand.logo) {
    // A logo on a plate of the secondary colour keeps dark logos visible on a dark band.
    const box = h - 2 * pad;
    try {
      doc.image(brand.logo, x + pad, y + pad, { fit: [box * 2.5, box], valign: 'center' });
      textX = x + pad + box * 2.5 + pad;
    } catch {
      // An unreadable logo is left out, the name still says whose parcel it is.
    }
  }
  // The name in up to two lines, 18 pt shrinking to 9, centred on the band; a longer one ends in an ellipsis.
  const box = { x: textX, width: x + w - textX - pad, size: Math.min(18, h * 0.45), minSize: 9, maxLines: 2 };
  const laid = layoutText(doc, brand.name, { ...box, y, font: 'Helvetica-Bold' });
  drawLaid(doc, laid, { ...box, y: y + (h - laid.height) / 2, font: 'Helvetica-Bold', color: ink });
  doc.restore();
}

/** Vector Code 128 from bwip-js's SVG: crisp on a thermal printer at any size. */
export function drawBarcode(doc: PDFKit.PDFDocument, svg: string, x: number, y: number, w: number, h: number) {
  const view = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(svg);
  if (!view) throw new Error('barcode: no viewBox');
  const [vw, vh] = [Number(view[1]), Number(view[2])];
  doc.save();
  doc.translate(x, y).scale(w / vw, h / vh);
  for (const m of svg.matchAll(/<path stroke="#000000" stroke-width="([\d.]+)" d="([^"]+)"/g)) {
    doc.path(m[2]).lineWidth(Number(m[1])).strokeColor('#000000').stroke();
  }
  doc.restore();
}

export function contactLine(input: ShipmentDocInput): string {
  const c = input.brand.customerService;
  return [c.email, c.phonenumber, c.url].filter(Boolean).map(printable).join('  ·  ');
}
