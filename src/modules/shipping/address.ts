import { ApiError } from '../../platform/errors.ts';
import { unprintedScript } from '../../platform/pdf-fonts.ts';
import { ADDRESS_FIELDS, type AddressField } from '../../platform/http/schemas.ts';
import { isDeniedCountry } from './data.ts';

export type Address = Partial<Record<AddressField, string>>;

/** ISO 3166-1 alpha-2 codes (officially assigned, plus XK which carriers use for Kosovo). */
const COUNTRIES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
    'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
    'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
    'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
    'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
  ).split(' '),
);

/** Carrier label limits (characters). */
export const ADDRESS_LIMITS: Record<AddressField, number> = {
  company: 50,
  firstname: 50,
  lastname: 50,
  streetname: 60,
  housenumber: 10,
  housenumberAddition: 10,
  additionalInfo: 60,
  state: 50,
  zipcode: 12,
  city: 50,
  countryCode: 2,
  phonenumber: 20,
  email: 100,
};

/** The fields the shipping label prints (the e-mail and phone number go to the carrier as data). */
const LABEL_FIELDS = new Set<AddressField>(ADDRESS_FIELDS.filter((f) => f !== 'email' && f !== 'phonenumber'));

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ()./-]+$/;

const invalid = (field: string, problem: string) => new ApiError('invalid_address', `${field} ${problem}`);

/** Blank strings count as absent; surrounding whitespace is not kept. */
export function normalizeAddress(input: Record<string, unknown>): Address {
  const out: Address = {};
  for (const f of ADDRESS_FIELDS) {
    const v = input[f];
    if (typeof v === 'string' && v.trim() !== '') out[f] = f === 'countryCode' ? v.trim().toUpperCase() : v.trim();
  }
  return out;
}

/** Country checks shared by the quote and order creation. */
export function checkCountry(address: Address, field: string): string {
  const cc = address.countryCode;
  if (!cc) throw invalid(`${field}.countryCode`, 'is required');
  if (!COUNTRIES.has(cc)) throw invalid(`${field}.countryCode`, `"${cc}" is not an ISO 3166-1 alpha-2 country code`);
  if (isDeniedCountry(cc)) throw new ApiError('invalid_address_denied_country', `We do not ship to ${cc}`);
  return cc;
}

/**
 * The full rules of a destination address (order creation and address change); `field` prefixes
 * the field names in messages, e.g. `body.order.dropshipAddress`.
 */
export function validateAddress(input: Record<string, unknown>, field: string): Address {
  const a = normalizeAddress(input);
  checkCountry(a, field);
  if (!a.firstname && !a.company) throw invalid(`${field}.firstname`, 'is required when there is no company');
  for (const f of ['lastname', 'streetname', 'zipcode', 'city'] as const) {
    if (!a[f]) throw invalid(`${field}.${f}`, 'is required');
  }
  if (!a.email)
    throw new ApiError(
      'invalid_address_missing_email',
      `${field}.email is required: the carrier sends delivery notices to it`,
    );
  if (!EMAIL.test(a.email)) throw invalid(`${field}.email`, 'is not an e-mail address');
  if (a.phonenumber !== undefined) {
    const digits = a.phonenumber.replace(/\D/g, '').length;
    if (!PHONE.test(a.phonenumber) || digits < 6 || digits > 15)
      throw invalid(`${field}.phonenumber`, 'must be a phone number of 6 to 15 digits, optionally starting with +');
  }
  for (const f of ADDRESS_FIELDS) {
    const v = a[f];
    if (v !== undefined && v.length > ADDRESS_LIMITS[f])
      throw invalid(`${field}.${f}`, `is longer than ${ADDRESS_LIMITS[f]} characters (carrier label limit)`);
    const script = LABEL_FIELDS.has(f) && v !== undefined ? unprintedScript(v) : null;
    if (script)
      throw invalid(
        `${field}.${f}`,
        `has ${script.startsWith('U+') ? `a character (${script})` : `${script} letters`} that the shipping label cannot print: write it in Latin letters (Chinese, Japanese and Korean print as they are)`,
      );
  }
  return a;
}

/** A German address whose street or additional info names a Packstation (DHL parcel locker). */
export function isPackstation(a: Address): boolean {
  return a.countryCode === 'DE' && /pack\s*station/i.test(`${a.streetname ?? ''} ${a.additionalInfo ?? ''}`);
}
