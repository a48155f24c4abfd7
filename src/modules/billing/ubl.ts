import type { SellerConfig } from '../../config-seller.ts';
import { amsterdamDay } from './calendar.ts';
import { groupsOf } from './credit-notes.ts';
import type { InvoiceLine, LineVat, VatGroup } from './invoice-lines.ts';
import type { InvoiceRow } from './repo.ts';

/**
 * An invoice or credit note as UBL 2.1 following Peppol BIS Billing 3.0 (EN 16931), from the
 * stored document only: the same document gives the same XML every time. A credit note's amounts
 * are written positive, as UBL's CreditNote expects; a refund line on an invoice is a negative
 * quantity at a positive price (EN 16931 BR-27).
 */

const CUSTOMIZATION = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
const PROFILE = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

/** Peppol electronic address schemes (EAS) of VAT numbers, by VAT prefix. */
const VAT_EAS: Readonly<Record<string, string>> = {
  AT: '9914',
  BE: '9925',
  BG: '9926',
  CY: '9928',
  CZ: '9929',
  DE: '9930',
  EE: '9931',
  EL: '9933',
  ES: '9920',
  FR: '9957',
  HR: '9934',
  HU: '9910',
  IE: '9935',
  IT: '9906',
  LT: '9937',
  LU: '9938',
  LV: '9939',
  MT: '9943',
  NL: '9944',
  PL: '9945',
  PT: '9946',
  RO: '9947',
  SI: '9949',
  SK: '9950',
};

const esc = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // Characters XML 1.0 cannot carry at all.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
const money = (cents: number) =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
const el = (name: string, value: string | number, attrs = '') => `<${name}${attrs}>${esc(String(value))}</${name}>`;
const amount = (name: string, cents: number) => el(name, money(cents), ' currencyID="EUR"');
const lastDay = (end: string) => new Date(Date.parse(`${end}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

function taxCategory(tag: string, v: { category: string; ratePercent: number }, exemption?: VatGroup): string {
  const reason =
    exemption?.exemptionCode && v.category !== 'S'
      ? el('cbc:TaxExemptionReasonCode', exemption.exemptionCode) +
        (exemption.wording ? el('cbc:TaxExemptionReason', exemption.wording) : '')
      : '';
  return `<${tag}>${el('cbc:ID', v.category)}${el('cbc:Percent', v.ratePercent)}${reason}<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></${tag}>`;
}

function supplier(s: SellerConfig): string {
  return `<cac:AccountingSupplierParty><cac:Party>${el('cbc:EndpointID', s.vatNumber, ` schemeID="${VAT_EAS[s.vatNumber.slice(0, 2)] ?? '9944'}"`)}<cac:PartyName>${el('cbc:Name', s.name)}</cac:PartyName><cac:PostalAddress>${el('cbc:StreetName', s.street)}${el('cbc:CityName', s.city)}${el('cbc:PostalZone', s.postcode)}<cac:Country>${el('cbc:IdentificationCode', s.countryCode)}</cac:Country></cac:PostalAddress><cac:PartyTaxScheme>${el('cbc:CompanyID', s.vatNumber)}<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme><cac:PartyLegalEntity>${el('cbc:RegistrationName', s.name)}${el('cbc:CompanyID', s.kvk, ' schemeID="0106"')}</cac:PartyLegalEntity><cac:Contact>${el('cbc:ElectronicMail', s.email)}</cac:Contact></cac:Party></cac:AccountingSupplierParty>`;
}

function customer(inv: InvoiceRow): string {
  const b = inv.buyer;
  const a = b.billingAddress;
  const vat = b.vatNumber;
  // The buyer's Peppol address: its VAT number where the scheme exists, else its billing e-mail.
  const endpoint =
    vat && VAT_EAS[vat.slice(0, 2)]
      ? el('cbc:EndpointID', vat, ` schemeID="${VAT_EAS[vat.slice(0, 2)]}"`)
      : a.email
        ? el('cbc:EndpointID', a.email, ' schemeID="EM"')
        : '';
  const street = [a.streetname, a.housenumber, a.housenumberAddition].filter(Boolean).join(' ');
  const address = `<cac:PostalAddress>${street ? el('cbc:StreetName', street) : ''}${a.city ? el('cbc:CityName', a.city) : ''}${a.zipcode ? el('cbc:PostalZone', a.zipcode) : ''}<cac:Country>${el('cbc:IdentificationCode', a.countryCode ?? '')}</cac:Country></cac:PostalAddress>`;
  const taxScheme = vat
    ? `<cac:PartyTaxScheme>${el('cbc:CompanyID', vat)}<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>`
    : '';
  return `<cac:AccountingCustomerParty><cac:Party>${endpoint}<cac:PartyName>${el('cbc:Name', b.accountName)}</cac:PartyName>${address}${taxScheme}<cac:PartyLegalEntity>${el('cbc:RegistrationName', b.legalEntity)}</cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>`;
}

/** The country goods of an intra-Community supply went to (EN 16931 BR-IC-12 asks for one per document). */
function delivery(inv: InvoiceRow, lines: InvoiceLine[]): string {
  const ic = lines.find((l) => l.vat?.category === 'K' && l.order?.shipTo);
  const country =
    ic?.order?.shipTo ?? (groupsOf(inv).some((g) => g.category === 'K') ? inv.buyer.billingAddress.countryCode : null);
  if (!country) return '';
  return `<cac:Delivery>${el('cbc:ActualDeliveryDate', ic?.date ?? amsterdamDay(inv.issued_at))}<cac:DeliveryLocation><cac:Address><cac:Country>${el('cbc:IdentificationCode', country)}</cac:Country></cac:Address></cac:DeliveryLocation></cac:Delivery>`;
}

function lineNote(l: InvoiceLine): string {
  const parts = [
    l.orderReference ? `Order ${l.orderReference}` : null,
    l.claimReference ? `claim ${l.claimReference}` : null,
  ];
  if (l.order?.customIdentifier) parts.push(`your reference ${l.order.customIdentifier}`);
  if (l.order?.store) parts.push(`store ${l.order.store}`);
  if (l.order?.shipTo) parts.push(`ship to ${l.order.shipTo}`);
  const note = parts.filter(Boolean).join(', ');
  return note ? el('cbc:Note', note) : '';
}

function documentLine(tag: 'Invoice' | 'CreditNote', i: number, l: InvoiceLine, vat: LineVat, sign: number): string {
  const net = sign * l.netCents;
  // A price is never negative (BR-27): a negative amount is a negative quantity at a positive price.
  const quantity = (l.quantity ?? 1) * (net < 0 ? -1 : 1);
  const price = Math.abs(l.unitPriceCents ?? l.netCents);
  const qtyTag = tag === 'Invoice' ? 'cbc:InvoicedQuantity' : 'cbc:CreditedQuantity';
  const sku = l.sku ? `<cac:SellersItemIdentification>${el('cbc:ID', l.sku)}</cac:SellersItemIdentification>` : '';
  return `<cac:${tag}Line>${el('cbc:ID', i + 1)}${lineNote(l)}${el(qtyTag, quantity, ' unitCode="C62"')}${amount('cbc:LineExtensionAmount', net)}<cac:Item>${el('cbc:Name', l.description.slice(0, 200))}${sku}${taxCategory('cac:ClassifiedTaxCategory', vat)}</cac:Item><cac:Price>${amount('cbc:PriceAmount', price)}</cac:Price></cac:${tag}Line>`;
}

/** The UBL XML of a stored invoice or credit note; `correctsNumber`: the invoice a credit note corrects. */
export function invoiceUblXml(inv: InvoiceRow, correctsNumber: string | null, currentSeller: SellerConfig): string {
  const seller = inv.seller ?? currentSeller;
  const credit = inv.kind === 'credit_note';
  const tag = credit ? 'CreditNote' : 'Invoice';
  const sign = credit ? -1 : 1;
  const groups = groupsOf(inv).map((g) => ({ ...g, netCents: sign * g.netCents, vatCents: sign * g.vatCents }));
  const single = groups.length === 1 ? groups[0] : null;
  const lineVat = (l: InvoiceLine): LineVat =>
    l.vat ?? {
      treatment: single?.treatment ?? 'domestic',
      category: single?.category ?? 'S',
      ratePercent: inv.vat_rate_percent,
    };
  const net = sign * inv.net_cents;
  const vat = sign * inv.vat_cents;
  const total = sign * inv.total_cents;
  const prepaid = !credit && inv.due_at.getTime() === inv.issued_at.getTime() ? total : 0;
  const notes = [...new Set(groups.map((g) => g.wording).filter((w): w is string => Boolean(w)))];
  if (credit && inv.reason) notes.push(`Reason: ${inv.reason}`);
  const parts = [
    el('cbc:CustomizationID', CUSTOMIZATION),
    el('cbc:ProfileID', PROFILE),
    el('cbc:ID', inv.number),
    el('cbc:IssueDate', amsterdamDay(inv.issued_at)),
    credit ? '' : el('cbc:DueDate', amsterdamDay(inv.due_at)),
    el(credit ? 'cbc:CreditNoteTypeCode' : 'cbc:InvoiceTypeCode', credit ? 381 : 380),
    notes.length ? el('cbc:Note', notes.join(' ')) : '',
    el('cbc:DocumentCurrencyCode', 'EUR'),
    el('cbc:BuyerReference', inv.account_id),
    `<cac:InvoicePeriod>${el('cbc:StartDate', inv.period_start)}${el('cbc:EndDate', lastDay(inv.period_end))}</cac:InvoicePeriod>`,
    correctsNumber
      ? `<cac:BillingReference><cac:InvoiceDocumentReference>${el('cbc:ID', correctsNumber)}</cac:InvoiceDocumentReference></cac:BillingReference>`
      : '',
    supplier(seller),
    customer(inv),
    delivery(inv, inv.lines),
    credit || prepaid
      ? ''
      : `<cac:PaymentMeans>${el('cbc:PaymentMeansCode', 58)}${el('cbc:PaymentID', inv.number)}<cac:PayeeFinancialAccount>${el('cbc:ID', seller.iban)}${el('cbc:Name', seller.name)}</cac:PayeeFinancialAccount></cac:PaymentMeans>`,
    `<cac:TaxTotal>${amount('cbc:TaxAmount', vat)}${groups
      .map(
        (g) =>
          `<cac:TaxSubtotal>${amount('cbc:TaxableAmount', g.netCents)}${amount('cbc:TaxAmount', g.vatCents)}${taxCategory('cac:TaxCategory', g, g)}</cac:TaxSubtotal>`,
      )
      .join('')}</cac:TaxTotal>`,
    `<cac:LegalMonetaryTotal>${amount('cbc:LineExtensionAmount', net)}${amount('cbc:TaxExclusiveAmount', net)}${amount('cbc:TaxInclusiveAmount', total)}${prepaid ? amount('cbc:PrepaidAmount', prepaid) : ''}${amount('cbc:PayableAmount', total - prepaid)}</cac:LegalMonetaryTotal>`,
    ...inv.lines.map((l, i) => documentLine(tag, i, l, lineVat(l), sign)),
  ];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${tag} xmlns="urn:oasis:names:specification:ubl:schema:xsd:${tag}-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">${parts.join('')}</${tag}>\n`;
}
