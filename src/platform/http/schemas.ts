import { type TProperties, type TSchema, Type } from 'typebox';
import { statusDescription } from '../errors.ts';

export { Type };
export type { Static, TSchema } from 'typebox';

/** A request object: undocumented fields are rejected (spec: request schemas are strict). */
export const Strict = <P extends TProperties>(properties: P, options: Record<string, unknown> = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** A response object: clients must ignore fields they do not know (spec: responses are open). */
export const Open = <P extends TProperties>(properties: P, options: Record<string, unknown> = {}) =>
  Type.Object(properties, { additionalProperties: true, ...options });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 timestamp with offset' });

export const Reference = (resource: string) =>
  Type.String({ description: `\`${resource}_<26 characters>\``, examples: [`${resource}_0123456789abcdefghjkmnpqrs`] });

/** Path parameters are plain strings: a malformed reference is a 404, not a 400. */
export const RefParams = <K extends string>(name: K) =>
  Strict({ [name]: Type.String({ maxLength: 200 }) } as { [P in K]: ReturnType<typeof Type.String> });

export const Cents = Type.Integer({ description: 'EUR cents' });

/**
 * A response that is an image file, in any of the formats the service writes: documented per
 * media type, so that clients generated from the document read the bytes instead of parsing JSON.
 */
export const ImageFile = (description: string) =>
  ({
    description,
    content: Object.fromEntries(
      ['image/png', 'image/jpeg', 'image/webp'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
    ),
  }) as never;

export const ErrorBody = Open(
  {
    code: Type.String(),
    message: Type.String(),
    requestId: Type.Optional(Type.String()),
    details: Type.Optional(Type.Unknown()),
  },
  { $id: 'Error', description: 'Every error response has this shape.' },
);

/** Error responses of an authenticated API route: the common ones plus those named. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const all = new Set([400, 401, 429, 500, ...statuses]);
  const out: Record<number, TSchema> = {};
  for (const s of [...all].sort()) out[s] = { ...Type.Ref('Error'), description: statusDescription(s) } as TSchema;
  return out;
}

export const PageQuery = {
  cursor: Type.Optional(Type.String({ maxLength: 500, description: 'Opaque; take it from `nextCursor`.' })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size, 1-100 (default 50)' }),
  ),
};

/** `{<plural>: [...], nextCursor}`. */
export const Page = <K extends string, T extends TSchema>(plural: K, item: T) =>
  Open({ [plural]: Type.Array(item), nextCursor: Nullable(Type.String()) } as {
    [P in K]: ReturnType<typeof Type.Array<T>>;
  } & { nextCursor: ReturnType<typeof Nullable<ReturnType<typeof Type.String>>> });

const ADDRESS_LIMITS = {
  company: 100,
  firstname: 100,
  lastname: 100,
  streetname: 100,
  housenumber: 20,
  housenumberAddition: 20,
  additionalInfo: 100,
  state: 100,
  zipcode: 20,
  city: 100,
  countryCode: 2,
  phonenumber: 30,
  email: 254,
} as const;
export type AddressField = keyof typeof ADDRESS_LIMITS;
export const ADDRESS_FIELDS = Object.keys(ADDRESS_LIMITS) as AddressField[];

const optionalString = (max: number) => Type.Optional(Type.String({ maxLength: max }));

/** Address fields as stored and returned: every field optional. */
export const AddressFields = () => {
  const L = ADDRESS_LIMITS;
  return {
    company: optionalString(L.company),
    firstname: optionalString(L.firstname),
    lastname: optionalString(L.lastname),
    streetname: optionalString(L.streetname),
    housenumber: optionalString(L.housenumber),
    housenumberAddition: optionalString(L.housenumberAddition),
    additionalInfo: optionalString(L.additionalInfo),
    state: optionalString(L.state),
    zipcode: optionalString(L.zipcode),
    city: optionalString(L.city),
    countryCode: optionalString(L.countryCode),
    phonenumber: optionalString(L.phonenumber),
    email: optionalString(L.email),
  };
};
