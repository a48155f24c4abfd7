import { type Agent, csrfOf, multipart } from './helpers.ts';

// Forms of partner.test.ts: the store address, the brand logo and the invitation.

/** The warehouse address of the store forms. */
export const ADDRESS = {
  'combinedAddress.company': 'Warehouse B.V.',
  'combinedAddress.lastname': 'Stock',
  'combinedAddress.streetname': 'Kade',
  'combinedAddress.housenumber': '1',
  'combinedAddress.zipcode': '1000 AA',
  'combinedAddress.city': 'Amsterdam',
  'combinedAddress.countryCode': 'nl',
  'combinedAddress.email': 'wh@example.com',
};

/** The brand's logo form, sent with `fields` (its CSRF token, or none) and `file` as the logo. */
export function postLogo(
  a: Agent,
  brand: string,
  fields: Record<string, string>,
  file: { filename: string; contentType: string; data: Buffer },
) {
  const form = multipart(fields, { name: 'logo', ...file });
  return a.request('POST', `/dashboard/brands/${brand}/logo`, { body: form.body, contentType: form.contentType });
}

/** The one-time link an invitation's answer shows, as the page has it (HTML-escaped). */
export const inviteLink = (body: string) => /<code id="invite-link">([^<]+)<\/code>/.exec(body)?.[1];

/** The invitation form of `page` sent for `token` with a password and its repeat. */
export const acceptInvitation = (b: Agent, page: string, token: string, password: string, repeat = password) =>
  b.post('/dashboard/invitation', { _csrf: csrfOf(page), token, password, passwordRepeat: repeat });
