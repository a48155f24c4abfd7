/** The service invoices from the Netherlands: Dutch VAT, unless the EU reverse charge applies. */
export const SELLER = {
  name: 'POD Partner Services B.V.',
  address: ['Keizersgracht 100', '1015 CV Amsterdam', 'Netherlands'],
  vatNumber: 'NL859999993B01',
  iban: 'NL91 ABNA 0417 1643 00',
  country: 'NL',
};
export const DOMESTIC_VAT_PERCENT = 21;
/** The seller's VAT number as VIES takes a requester: with it, VIES answers with a consultation number. */
export const SELLER_VAT = { prefix: SELLER.vatNumber.slice(0, 2), number: SELLER.vatNumber.slice(2) };

const EU = new Set('AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '));

/**
 * Reverse charge for a business in another EU member state that gave a VAT number (the buyer
 * accounts for the VAT); Dutch VAT otherwise: Dutch buyers, EU buyers without a VAT number, and
 * buyers outside the EU (the brief's rule; exports of services are not modelled).
 */
export function vatTreatment(countryCode: string | undefined, vatNumber: string | null) {
  const country = (countryCode ?? '').toUpperCase();
  if (vatNumber?.trim() && EU.has(country) && country !== SELLER.country)
    return { treatment: 'reverse_charge' as const, ratePercent: 0 };
  return { treatment: 'domestic' as const, ratePercent: DOMESTIC_VAT_PERCENT };
}

/** VAT of a net amount, rounded half away from zero to the cent. */
export const vatOf = (netCents: number, ratePercent: number) =>
  Math.sign(netCents) * Math.round((Math.abs(netCents) * ratePercent) / 100);
