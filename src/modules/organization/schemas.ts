import { AddressFields, Nullable, Open, Reference, Strict, Timestamp, Type } from '../../platform/http/schemas.ts';

export const AddressOut = Open(AddressFields());
/** Organization addresses (billing, combined); the order module applies the full address rules. */
export const AddressIn = Strict(AddressFields());

export const Organization = Open({ reference: Reference('Organization'), name: Type.String(), created: Timestamp });

export const Account = Open({
  reference: Reference('Account'),
  name: Type.String(),
  balance: Type.Integer({ description: 'EUR cents; negative when money is owed' }),
  prepaid: Type.Boolean({ description: 'Prepaid accounts pay before production; the others are invoiced monthly' }),
  paymentTermDays: Type.Integer(),
  wouldBeBalance: Nullable(
    Type.Integer({
      description:
        'Test environment only: the balance in EUR cents as it would be if the orders here were charged (nothing is); null in production',
    }),
  ),
  legalEntity: Open({ name: Type.String(), vatNumber: Nullable(Type.String()) }),
  billingAddress: AddressOut,
  created: Timestamp,
});

export const Brand = Open({
  reference: Reference('Brand'),
  name: Type.String(),
  logoUrl: Nullable(Type.String()),
  primaryColor: Type.String({ description: '#rrggbb' }),
  secondaryColor: Type.String({ description: '#rrggbb' }),
  customerService: Open({
    email: Nullable(Type.String()),
    phonenumber: Nullable(Type.String()),
    url: Nullable(Type.String()),
  }),
  created: Timestamp,
});

export const Store = Open({
  reference: Reference('Store'),
  name: Type.String(),
  code: Type.String({
    description: "The store's code: the first part of its orders' `legacyOrderCode`, and how the dashboard names it",
  }),
  legacyCode: Type.String({
    description:
      'The V1 store code, the same value as `code` (the `store_code` of the legacy callback); a legacy identifier, removed in the next major version',
  }),
  integration: Type.String({
    description: 'Open enum: `api`, `shopify`, ...; orders can be created through the API only for `api`',
  }),
  accountReference: Reference('Account'),
  defaultBrandReference: Nullable(Reference('Brand')),
  combinedAddress: Nullable(AddressOut),
  callbackUrl: Nullable(Type.String()),
  created: Timestamp,
});

export const ApiKey = Open({
  reference: Reference('Apikey'),
  name: Type.String(),
  hint: Type.String({ description: 'The first characters of the secret, to tell keys apart' }),
  readOnly: Type.Boolean(),
  created: Timestamp,
  lastUsed: Nullable(Timestamp),
  revoked: Nullable(Timestamp),
});

const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$' });
const Name = Type.String({ minLength: 1, maxLength: 200 });

export const CreateOrganization = Strict({ name: Name, rendertokenLimit: Type.Optional(Type.Integer({ minimum: 0 })) });
export const CreateAccount = Strict({
  name: Name,
  paymentTermDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
  balance: Type.Optional(Type.Integer()),
  prepaid: Type.Optional(Type.Boolean()),
  legalEntity: Strict({ name: Name, vatNumber: Type.Optional(Type.String({ maxLength: 30 })) }),
  billingAddress: AddressIn,
});
export const CreateBrand = Strict({
  name: Name,
  logoUrl: Type.Optional(Type.String({ maxLength: 2000 })),
  primaryColor: Type.Optional(Color),
  secondaryColor: Type.Optional(Color),
  customerService: Type.Optional(
    Strict({
      email: Type.Optional(Type.String({ maxLength: 254 })),
      phonenumber: Type.Optional(Type.String({ maxLength: 30 })),
      url: Type.Optional(Type.String({ maxLength: 2000 })),
    }),
  ),
});
export const CreateStore = Strict({
  name: Name,
  code: Type.String({ pattern: '^[A-Za-z0-9]{2,20}$' }),
  integration: Type.String({ minLength: 1, maxLength: 50 }),
  accountReference: Type.String(),
  defaultBrandReference: Type.Optional(Nullable(Type.String())),
  combinedAddress: Type.Optional(Nullable(AddressIn)),
  callbackUrl: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
});
export const UpdateStore = Strict({
  name: Type.Optional(Name),
  integration: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  defaultBrandReference: Type.Optional(Nullable(Type.String())),
  combinedAddress: Type.Optional(Nullable(AddressIn)),
  callbackUrl: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
});
export const CreateApiKey = Strict({
  name: Name,
  readOnly: Type.Optional(Type.Boolean()),
  /** Operator only: issue the key through an integrator (its code or reference). */
  integrator: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});
export const CreateIntegrator = Strict({
  code: Type.String({ pattern: '^[A-Za-z0-9_-]{2,30}$' }),
  name: Name,
});
const Limit = Strict({ quota: Type.Integer({ minimum: 1 }), windowSeconds: Type.Integer({ minimum: 1 }) });
export const SetRateLimits = Strict({
  default: Type.Optional(Limit),
  uploads: Type.Optional(Limit),
  downloads: Type.Optional(Limit),
});
