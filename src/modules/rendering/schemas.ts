import { Nullable, Open, Reference, Strict, Timestamp, Type } from '../../platform/http/schemas.ts';

const RefList = (resource: string) => Type.Array(Open({ reference: Reference(resource) }));
const Ref = Type.String({ maxLength: 200 });

export const SceneListItem = Open({ reference: Reference('Scene'), name: Type.String() });
export const Scene = Open({
  reference: Reference('Scene'),
  name: Type.String(),
  description: Type.String(),
  private: Type.Boolean({ description: 'True when the scene belongs to your organization only' }),
  allowsProductPerspectives: Type.Boolean({
    description: 'Product perspectives can be used in this scene in addition to its own',
  }),
  compatibleProductgroups: RefList('Productgroup'),
  perspectives: RefList('Perspective'),
});

export const Perspective = Open({
  reference: Reference('Perspective'),
  name: Type.String(),
  output: Open({
    widthPx: Type.Integer(),
    heightPx: Type.Integer(),
    format: Type.String({ description: '`png`, `jpeg` or `webp`' }),
  }),
  scenes: Nullable(RefList('Scene')),
  products: Nullable(RefList('Product')),
});

export const CompositionLookup = Open({ reference: Reference('Composition'), tokenCost: Type.Integer() });
export const Composition = Open({
  reference: Reference('Composition'),
  tokenCost: Type.Integer({ description: 'Rendertokens deducted by every POST /renders with this composition' }),
  sceneReference: Reference('Scene'),
  productReference: Reference('Product'),
  perspectiveReference: Reference('Perspective'),
});

const File = Nullable(
  Open({ mimeType: Type.String(), extension: Type.String(), size: Type.Integer({ description: 'bytes' }) }),
);
export const Render = Open({
  reference: Reference('Render'),
  compositionReference: Reference('Composition'),
  imageReference: Reference('Image'),
  status: Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('failed')]),
  thumbhash: Nullable(Type.String({ description: 'base64 ThumbHash of the thumbnail; only when completed' })),
  media: File,
  thumbnail: File,
  created: Timestamp,
  completed: Nullable(Timestamp),
  failureReason: Nullable(Type.String({ description: 'Why a failed render could not be produced' })),
});

export const Rendertokens = Open({
  used: Type.Integer(),
  limit: Type.Integer(),
  remaining: Type.Integer(),
  resets: Type.String({ description: 'Next reset, Monday 00:00 Europe/Amsterdam, with its offset' }),
});

export const ScenesQuery = Strict({ productgroupReference: Type.Optional(Ref) });
export const PerspectivesQuery = Strict({ sceneReference: Type.Optional(Ref), productReference: Type.Optional(Ref) });
export const LookupQuery = Strict({ sceneReference: Ref, productReference: Ref, perspectiveReference: Ref });
export const CreateRender = Strict({ render: Strict({ compositionReference: Ref, imageReference: Ref }) });
export const CreatePreview = Strict({ preview: Strict({ compositionReference: Ref, imageReference: Ref }) });

// --- operator import ---

const Key = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9][\\w.:-]*$',
  description: 'Your stable name for the row: importing it again updates it',
});
const Base64 = Type.String({ minLength: 4, maxLength: 20_000_000, description: 'base64 PNG, JPEG, WebP or SVG' });

export const ImportScene = Strict({
  key: Key,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  privateOrganizationReference: Type.Optional(Nullable(Ref)),
  allowsProductPerspectives: Type.Optional(Type.Boolean()),
  compatibleProductgroupReferences: Type.Array(Ref, { maxItems: 500 }),
});
export const ImportPerspective = Strict({
  key: Key,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  output: Strict({
    widthPx: Type.Integer({ minimum: 16, maximum: 8000 }),
    heightPx: Type.Integer({ minimum: 16, maximum: 8000 }),
    format: Type.Union([Type.Literal('png'), Type.Literal('jpeg'), Type.Literal('webp')]),
  }),
  /** Scene keys (of this import or earlier ones) for a scene perspective. */
  sceneKeys: Type.Optional(Type.Array(Key, { maxItems: 500 })),
  productReferences: Type.Optional(Type.Array(Ref, { maxItems: 500 })),
});
const Hex = Type.String({ pattern: '^#[0-9a-fA-F]{6}$' });
const Unit = Type.Number({ minimum: 0, maximum: 1 });
const ImportMaterial = Strict({
  baseHex: Hex,
  phoneHex: Hex,
  transparency: Unit,
  shading: Unit,
  highlight: Unit,
  grain: Unit,
  ink: Unit,
  magsafeRing: Type.Boolean(),
});
export const ImportComposition = Strict({
  key: Key,
  sceneKey: Key,
  productReference: Ref,
  perspectiveKey: Key,
  tokenCost: Type.Integer({ minimum: 0, maximum: 100_000 }),
  available: Type.Optional(Type.Boolean()),
  /**
   * One of: `{background, uv, layers, material, backMm}` (UV-mapped), `{generate}` (drawn from the
   * product), or a rectangle template `{background, mask, overlay?, printArea}`. One object with optional parts,
   * so a mistake in a part is named (a union would only say that no variant matched).
   */
  template: Strict({
    background: Type.Optional(Base64),
    mask: Type.Optional(Base64),
    overlay: Type.Optional(Nullable(Base64)),
    printArea: Type.Optional(
      Strict({
        x: Type.Integer({ minimum: 0 }),
        y: Type.Integer({ minimum: 0 }),
        width: Type.Integer({ minimum: 2 }),
        height: Type.Integer({ minimum: 2 }),
        rotation: Type.Number({ minimum: -360, maximum: 360 }),
      }),
    ),
    uv: Type.Optional(Base64),
    layers: Type.Optional(Base64),
    backMm: Type.Optional(
      Type.Tuple([Type.Number({ minimum: 1, maximum: 1000 }), Type.Number({ minimum: 1, maximum: 1000 })]),
    ),
    material: Type.Optional(ImportMaterial),
    generate: Type.Optional(
      Type.Union([
        Strict({ kind: Type.Literal('front') }),
        Strict({ kind: Type.Literal('stage'), stage: Key, view: Key }),
      ]),
    ),
  }),
});
export const ImportRendering = Strict({
  scenes: Type.Optional(Type.Array(ImportScene, { maxItems: 500 })),
  perspectives: Type.Optional(Type.Array(ImportPerspective, { maxItems: 500 })),
  compositions: Type.Optional(Type.Array(ImportComposition, { maxItems: 500 })),
});
