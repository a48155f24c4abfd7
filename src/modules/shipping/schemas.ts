import { ADDRESS_FIELDS, Strict, Type } from '../../platform/http/schemas.ts';

export const LevelEnum = Type.Enum(['basic', 'tracked', 'express'], { description: 'ShippingLevel (strict enum)' });
export const KindEnum = Type.Enum(['dropship', 'combined'], { description: 'ShipmentKind (strict enum)' });

/**
 * Address fields as strings; lengths are capped loosely here and checked against the carrier
 * limits by the address rules (400 invalid_address naming the field), which the quote skips.
 */
const addressProps = Object.fromEntries(
  ADDRESS_FIELDS.map((f) => [f, Type.Optional(Type.String({ maxLength: 1000 }))]),
) as Record<(typeof ADDRESS_FIELDS)[number], ReturnType<typeof Type.Optional<ReturnType<typeof Type.String>>>>;
export const AddressIn = Strict(addressProps, { description: 'Dropship address: every field a string' });
