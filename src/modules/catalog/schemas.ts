import { ACCESSORY_KINDS, type AccessoryKind } from './look.ts';
import { CASE_TYPE_KEYS } from './casetypes.ts';
import { Cents, Nullable, Open, PageQuery, Reference, Strict, Timestamp, Type } from '../../platform/http/schemas.ts';

export const STATUSES = ['announced', 'prelaunched', 'launched', 'sunsetted', 'ended', 'archived'] as const;
export type ProductStatus = (typeof STATUSES)[number];

export const MEDIA_KINDS = ['example_image', 'example_render'] as const;

// ---- responses (open) ----

const PrintDimensions = {
  widthMm: Type.Number({ description: 'Printable width in millimetres' }),
  heightMm: Type.Number({ description: 'Printable height in millimetres' }),
  widthPx: Type.Integer({ description: 'Width of the print file in pixels' }),
  heightPx: Type.Integer({ description: 'Height of the print file in pixels' }),
  dpi: Type.Integer(),
};

export const PrintOut = Nullable(
  Open(
    { modified: Timestamp, ...PrintDimensions },
    {
      description:
        'Print dimensions; null for non-print products and for announced products whose specification is not complete',
    },
  ),
);

const productFields = {
  reference: Reference('Product'),
  legacyItemSKU: Type.String({
    description:
      'Previous-version SKU: the warehouse SKU for products created before 2026-03-22, else the warehouse SKU plus a `P<nnn>` suffix',
  }),
  name: Type.String(),
  status: Type.String({ enum: [...STATUSES], description: 'Lifecycle stage' }),
  availableQuantity: Type.Integer({ description: 'Live stock' }),
  layersModified: Nullable(Timestamp),
  printModified: Nullable(Timestamp),
  printable: Type.Boolean({
    description: 'Print products need an image on an orderline; non-print products must not carry one',
  }),
  productgroupReference: Reference('Productgroup'),
  price: Cents,
  weightGrams: Type.Integer(),
  print: PrintOut,
  created: Timestamp,
};

export const ProductListItem = Open(productFields);

export const LayerImage = Open({ name: Type.String(), url: Type.String(), modified: Timestamp });

export const MediaOut = Open({
  filename: Type.String(),
  kind: Type.String({ description: 'Open enum: `example_image`, `example_render`' }),
  url: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
  width: Type.Integer(),
  height: Type.Integer(),
  modified: Timestamp,
});

export const ProductDetail = Open({
  ...productFields,
  colour: Type.Optional(
    Nullable(
      Open(
        {
          name: Type.String(),
          hex: Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }),
          bezelHex: Type.Optional(Type.String({ pattern: '^#[0-9a-fA-F]{6}$' })),
          cameraRingHex: Type.Optional(Type.String({ pattern: '^#[0-9a-fA-F]{6}$' })),
        },
        {
          description:
            "Extension: the case's colourway (shell or leather colour, and the side wall's `bezelHex` and camera rim's `cameraRingHex` where they differ); product pictures and mockups render in it. Null when the product has none.",
        },
      ),
    ),
  ),
  layers: Open({ modified: Nullable(Timestamp), images: Type.Array(LayerImage) }),
  media: Type.Array(MediaOut),
});

export const Productgroup = Open({
  reference: Reference('Productgroup'),
  name: Type.String(),
  private: Type.Boolean({ description: 'Private productgroups are visible and orderable only for their organization' }),
  price: Cents,
});

export const Packaging = Open({ reference: Reference('Packaging'), name: Type.String(), private: Type.Boolean() });

export const Item = Open({
  reference: Reference('Item'),
  sku: Type.String({ description: 'Warehouse SKU' }),
  logicalQuantity: Type.Integer(),
  physicalQuantity: Type.Integer(),
  products: Type.Array(Open({ reference: Reference('Product') })),
});

// ---- requests (strict) ----

export const ProductsQuery = Strict(PageQuery);
export const LegacySkuQuery = Strict({ legacyItemSku: Type.String({ minLength: 1, maxLength: 100 }) });
export const MediaParams = Strict({
  productReference: Type.String({ maxLength: 200 }),
  filename: Type.String({ maxLength: 200 }),
});

const Code = Type.String({
  pattern: '^[a-z0-9][a-z0-9-]{0,63}$',
  description: 'Stable key of the record in catalog files',
});
const Sku = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Quantity = Type.Integer({ minimum: 0, maximum: 10_000_000 });
const OrgRef = Nullable(Type.String({ maxLength: 200 }));

export const PrintIn = Strict({
  widthMm: Type.Number({ exclusiveMinimum: 0, maximum: 2000 }),
  heightMm: Type.Number({ exclusiveMinimum: 0, maximum: 2000 }),
  widthPx: Type.Integer({ minimum: 1, maximum: 20000 }),
  heightPx: Type.Integer({ minimum: 1, maximum: 20000 }),
  dpi: Type.Integer({ minimum: 1, maximum: 2400 }),
});

/** A file inline: base64 bytes, an image the server draws (placeholders), or the product's own picture. */
export const FileIn = Type.Union([
  Strict({ base64: Type.String({ minLength: 1 }) }),
  Strict({
    generate: Strict({
      width: Type.Integer({ minimum: 1, maximum: 4000 }),
      height: Type.Integer({ minimum: 1, maximum: 4000 }),
      background: Type.Optional(Type.String({ pattern: '^#[0-9a-fA-F]{6}$' })),
      text: Type.Optional(Type.String({ maxLength: 100 })),
      format: Type.Optional(Type.Union([Type.Literal('png'), Type.Literal('jpeg')])),
    }),
  }),
  Strict({
    picture: Strict({
      view: Type.String({
        maxLength: 20,
        description: "the product's own picture: back, angle or side (cases); front, angle or side (accessories)",
      }),
    }),
  }),
]);

/** What a product's pictures show beyond its device and case type; null: nothing (drawn from those alone). */
export const LookIn = Strict({
  accessory: Type.Optional(
    Type.Unsafe<AccessoryKind>(
      Type.String({ enum: [...ACCESSORY_KINDS], description: 'draws an accessory (screen-protector needs a device)' }),
    ),
  ),
  colorHex: Type.Optional(
    Type.String({
      pattern: '^#[0-9a-fA-F]{6}$',
      description: 'the phone colour a case is shown on, or the accessory colour',
    }),
  ),
  colour: Type.Optional(
    Strict({
      name: Type.String({ minLength: 1, maxLength: 40, description: 'e.g. Sand, Walnut' }),
      hex: Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: "the case's shell or leather colour" }),
      bezelHex: Type.Optional(
        Type.String({
          pattern: '^#[0-9a-fA-F]{6}$',
          description: "the side wall's colour (a tough case's bumper); absent: `hex`",
        }),
      ),
      cameraRingHex: Type.Optional(
        Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: "the camera cut-out's rim colour; absent: `hex`" }),
      ),
    }),
  ),
});

export const LayerIn = Strict({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$' }), file: FileIn });
export const MediaIn = Strict({
  name: Type.String({
    pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,80}\\.(png|jpg|jpeg|webp)$',
    description: 'File name; renders get a content hash added so their URL can be cached forever',
  }),
  kind: Type.Union([Type.Literal('example_image'), Type.Literal('example_render')]),
  file: FileIn,
});

export const StockIn = Strict({ logicalQuantity: Quantity, physicalQuantity: Type.Optional(Quantity) });
const Reason = Type.String({ minLength: 1, maxLength: 500 });
const Delta = Type.Integer({ minimum: -10_000_000, maximum: 10_000_000 });
/** Goods arrived at the warehouse: both quantities go up. */
export const StockReceipt = Strict({
  quantity: Type.Integer({ minimum: 1, maximum: 10_000_000 }),
  reason: Type.Optional(Reason),
});
/** A count, damage or loss: relative changes with the reason kept in the stock ledger. */
export const StockCorrection = Strict({
  logicalDelta: Type.Optional(Delta),
  physicalDelta: Type.Optional(Delta),
  reason: Reason,
});

const Mm = (max: number, description?: string) =>
  Type.Number({ minimum: 0, maximum: max, ...(description ? { description } : {}) });
const PositiveMm = (max: number, description?: string) =>
  Type.Number({ exclusiveMinimum: 0, maximum: max, ...(description ? { description } : {}) });

/** One phone model's outer geometry (docs/catalog-import.md, "Devices"). */
export const DeviceIn = Strict({
  key: Code,
  brand: Name,
  model: Name,
  releaseDate: Type.String({ format: 'date', description: 'YYYY-MM-DD; drives the lifecycle stage' }),
  flagship: Type.Boolean(),
  preliminary: Type.Optional(
    Type.Boolean({ description: 'Dimensions from leaks or dummies: no print specification while announced' }),
  ),
  body: Strict({
    widthMm: PositiveMm(300),
    heightMm: PositiveMm(300),
    depthMm: PositiveMm(50),
    cornerRadiusMm: Mm(100),
  }),
  camera: Strict({
    shape: Type.Union([Type.Literal('rounded-rect'), Type.Literal('circle')]),
    xMm: Mm(300, 'From the left edge of the back, seen from behind'),
    yMm: Mm(300, 'From the top edge of the back'),
    widthMm: PositiveMm(300),
    heightMm: PositiveMm(300),
    cornerRadiusMm: Mm(150),
    lenses: Type.Array(
      Strict({
        xMm: Mm(300, "Centre, from the island's left edge"),
        yMm: Mm(300, "Centre, from the island's top edge"),
        diameterMm: PositiveMm(100),
      }),
      { minItems: 1, maxItems: 10 },
    ),
  }),
  cutouts: Type.Array(
    Strict({
      side: Type.Union([Type.Literal('left'), Type.Literal('right'), Type.Literal('top'), Type.Literal('bottom')]),
      kind: Type.Union([Type.Literal('button'), Type.Literal('port'), Type.Literal('switch')]),
      offsetMm: Mm(300),
      lengthMm: PositiveMm(300),
    }),
    { maxItems: 20 },
  ),
  colors: Type.Array(Strict({ name: Name, hex: Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }) }), { maxItems: 20 }),
});
export const DeviceList = Type.Array(DeviceIn, { maxItems: 1000 });

export const ImportDocument = Strict({
  catalogDate: Type.Optional(
    Type.String({
      format: 'date',
      description:
        'YYYY-MM-DD: the day lifecycle stages are derived for (products with a device and no status); default today',
    }),
  ),
  devices: Type.Optional(DeviceList),
  productgroups: Type.Optional(
    Type.Array(
      Strict({
        code: Code,
        reference: Type.Optional(Type.String({ maxLength: 200 })),
        name: Name,
        price: Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'EUR cents' }),
        privateOrganization: Type.Optional(OrgRef),
        caseType: Type.Optional(
          Nullable(
            Type.String({
              enum: [...CASE_TYPE_KEYS],
              description: 'What the group sells; products with a device get print area and layers from it',
            }),
          ),
        ),
      }),
      { maxItems: 1000 },
    ),
  ),
  packagings: Type.Optional(
    Type.Array(
      Strict({
        code: Code,
        reference: Type.Optional(Type.String({ maxLength: 200 })),
        name: Name,
        privateOrganization: Type.Optional(OrgRef),
      }),
      { maxItems: 1000 },
    ),
  ),
  items: Type.Optional(
    Type.Array(
      Strict({
        sku: Sku,
        reference: Type.Optional(Type.String({ maxLength: 200 })),
        organization: Type.Optional(OrgRef),
        logicalQuantity: Type.Optional(Quantity),
        physicalQuantity: Type.Optional(Quantity),
      }),
      { maxItems: 10000 },
    ),
  ),
  products: Type.Optional(
    Type.Array(
      Strict({
        reference: Type.Optional(Type.String({ maxLength: 200 })),
        legacyItemSku: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        name: Name,
        productgroup: Type.String({ maxLength: 200, description: 'code or reference' }),
        item: Type.String({ maxLength: 200, description: 'warehouse SKU or reference' }),
        device: Type.Optional(Nullable(Type.String({ maxLength: 200, description: 'key of the device it fits' }))),
        status: Type.Optional(
          Type.String({ enum: [...STATUSES], description: "left out: derived from the device's release date" }),
        ),
        printable: Type.Boolean(),
        weightGrams: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })),
        created: Type.Optional(Type.String({ format: 'date-time' })),
        print: Type.Optional(Nullable(PrintIn)),
        layers: Type.Optional(Type.Array(LayerIn, { maxItems: 20 })),
        media: Type.Optional(Type.Array(MediaIn, { maxItems: 50 })),
        look: Type.Optional(Nullable(LookIn)),
      }),
      { maxItems: 10000 },
    ),
  ),
});

export const ProductChange = Strict(
  {
    name: Type.Optional(Name),
    status: Type.Optional(Type.String({ enum: [...STATUSES] })),
    stock: Type.Optional(StockIn),
    print: Type.Optional(Nullable(PrintIn)),
    layers: Type.Optional(Type.Array(LayerIn, { maxItems: 20 })),
    media: Type.Optional(Type.Array(MediaIn, { maxItems: 50 })),
  },
  { minProperties: 1 },
);

export const LifecycleAdvance = Strict({
  catalogDate: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD; default today' })),
});
