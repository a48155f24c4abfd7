import type { ParcelAnnouncement } from '../port.ts';
import { type ShippingMethods, shippingOptionFor } from './methods.ts';
import { CarrierRefusal } from '../port.ts';

const money = (cents: number) => (cents / 100).toFixed(2);
const kg = (grams: number) => (grams / 1000).toFixed(3);

/** The sender from the return address's lines (country code last, "1234 AB City" before it). */
function fromAddress(p: ParcelAnnouncement) {
  const lines = p.from;
  const country = lines[lines.length - 1] ?? 'NL';
  const cityLine = lines[lines.length - 2] ?? '';
  const m = /^(\S+(?:\s[A-Z]{2})?)\s+(.+)$/.exec(cityLine);
  return {
    name: p.senderName,
    company_name: p.senderName,
    address_line_1: lines[lines.length - 3] ?? lines[0] ?? '',
    postal_code: m?.[1] ?? cityLine,
    city: m?.[2] ?? cityLine,
    country_code: country,
  };
}

/**
 * The body of POST /shipments/announce. Address fields go as they are: a field too long for the
 * carrier comes back as Sendcloud's error, shown to the operator, never cut short here.
 */
export function announceBody(p: ParcelAnnouncement, methods: ShippingMethods) {
  const to = p.to;
  const country = to.countryCode ?? '';
  const option = shippingOptionFor(methods, p.level, country, p.weightGrams);
  if (!option)
    throw new CarrierRefusal(
      `No Sendcloud shipping method covers ${p.level} to ${country} at ${p.weightGrams} g: add a rule to src/modules/carriers/sendcloud/shipping-methods.json`,
    );
  const name = [to.firstname, to.lastname].filter(Boolean).join(' ') || to.company || '';
  const total = p.items.reduce((n, i) => n + i.quantity * i.unitPriceCents, 0);
  const toAddress: Record<string, string> = {
    name,
    address_line_1: to.streetname ?? '',
    house_number: [to.housenumber, to.housenumberAddition].filter(Boolean).join(' '),
    postal_code: to.zipcode ?? '',
    city: to.city ?? '',
    country_code: country,
  };
  if (to.company) toAddress.company_name = to.company;
  // Sendcloud takes the state as ISO 3166-2 (US-NY); required for the US, Canada and a few more.
  if (to.state) toAddress.state_province_code = /^[A-Z0-9]{1,3}$/.test(to.state) ? `${country}-${to.state}` : to.state;
  if (to.additionalInfo) toAddress.address_line_2 = to.additionalInfo;
  if (to.email) toAddress.email = to.email;
  if (to.phonenumber) toAddress.phone_number = to.phonenumber;
  if (!toAddress.house_number) delete toAddress.house_number;
  return {
    external_reference_id: p.reference,
    order_number: p.orderNumber,
    label_details: { mime_type: 'application/pdf', dpi: 72 },
    to_address: toAddress,
    from_address: fromAddress(p),
    ship_with: { type: 'shipping_option_code', properties: { shipping_option_code: option } },
    total_order_price: { value: money(total), currency: p.currency },
    parcels: [
      {
        weight: { value: kg(p.weightGrams), unit: 'kg' },
        parcel_items: p.items.map((i) => ({
          description: i.description,
          quantity: i.quantity,
          weight: { value: Number(kg(i.unitWeightGrams)), unit: 'kg' },
          price: { value: money(i.unitPriceCents), currency: p.currency },
          hs_code: i.hsCode,
          origin_country: i.originCountry,
          sku: i.sku,
        })),
      },
    ],
    ...(p.customs
      ? {
          customs_information: {
            invoice_number: p.reference,
            export_reason: methods.customs.exportReason,
            export_type: methods.customs.exportType,
          },
        }
      : {}),
  };
}
