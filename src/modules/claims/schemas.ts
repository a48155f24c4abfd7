import { Nullable, Open, PageQuery, Reference, Strict, Timestamp, Type } from '../../platform/http/schemas.ts';

export const MAX_EVIDENCE = 3;
export const MAX_COMMENT = 1000;

const Ref = Type.String({ maxLength: 200 });
const EvidenceRefs = Type.Array(Ref, {
  maxItems: 50,
  description: `\`Evidence_<id>\` references, at most ${MAX_EVIDENCE}`,
});

export const Claimcategory = Open({
  reference: Reference('Claimcategory'),
  name: Type.String(),
  evidenceRequired: Type.Boolean(),
});
const CategoryRef = Open({ reference: Reference('Claimcategory'), name: Type.String() });

export const ClaimStatusEnum = Type.Union([
  Type.Literal('pending'),
  Type.Literal('resolved'),
  Type.Literal('rejected'),
  Type.Literal('retracted'),
]);

export const ClaimListItem = Open({
  reference: Reference('Claim'),
  orderReference: Reference('Order'),
  status: ClaimStatusEnum,
  claimcategories: Type.Array(CategoryRef),
  created: Timestamp,
  retracted: Nullable(Timestamp),
  decided: Nullable(Timestamp),
});

export const Claimline = Open({
  productReference: Reference('Product'),
  orderlineIndex: Type.Integer(),
  orderReference: Reference('Order'),
  quantity: Type.Integer(),
  imageReference: Nullable(Reference('Image')),
  claimcategory: CategoryRef,
  decision: Nullable(
    Open({
      replacementQuantity: Type.Integer(),
      refundQuantity: Type.Integer(),
      rejectionQuantity: Type.Integer(),
      comment: Type.String(),
    }),
  ),
  evidenceUrls: Type.Array(Type.String()),
});

export const ClaimDetail = Open({
  reference: Reference('Claim'),
  orderReference: Reference('Order'),
  shipmentReference: Reference('Shipment'),
  status: ClaimStatusEnum,
  comment: Type.String(),
  createdBy: Type.String(),
  created: Timestamp,
  retracted: Nullable(Timestamp),
  decision: Nullable(Open({ decided: Timestamp, refundShippingCosts: Type.Boolean(), comment: Type.String() })),
  evidenceUrls: Type.Array(Type.String()),
  claimlines: Type.Array(Claimline),
  replacementOrderReferences: Type.Array(Reference('Order')),
});

export const Evidence = Open({
  reference: Reference('Evidence'),
  format: Type.String(),
  size: Type.Integer(),
  created: Timestamp,
});

export const ClaimCreated = Open({ claim: Open({ reference: Reference('Claim') }) });

export const PackageMissingBody = Strict({
  claim: Strict({ shipmentReference: Ref, evidenceReferences: Type.Optional(EvidenceRefs) }),
});

export const ItemIssuesBody = Strict({
  claim: Strict({
    shipmentReference: Ref,
    orderReference: Ref,
    comment: Type.Optional(Type.String({ maxLength: MAX_COMMENT })),
    claimlines: Type.Array(
      Strict({
        orderlineIndex: Type.Integer({ minimum: 1 }),
        quantity: Type.Integer({ minimum: 1 }),
        claimcategoryReference: Ref,
        evidenceReferences: Type.Optional(EvidenceRefs),
      }),
      { minItems: 1, maxItems: 100 },
    ),
  }),
});

export const ListClaimsQuery = Strict({
  ...PageQuery,
  closedAfter: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'ISO 8601; closed claims closed after this instant are listed (default: 14 days ago)',
    }),
  ),
});

const Quantity = Type.Integer({ minimum: 0 });
export const DecideBody = Strict({
  decision: Strict({
    status: Type.Union([Type.Literal('resolved'), Type.Literal('rejected')]),
    refundShippingCosts: Type.Boolean(),
    comment: Type.String({ maxLength: MAX_COMMENT }),
    claimlines: Type.Array(
      Strict({
        orderlineIndex: Type.Integer({ minimum: 1 }),
        orderReference: Type.Optional(Ref),
        replacementQuantity: Quantity,
        refundQuantity: Quantity,
        rejectionQuantity: Quantity,
        comment: Type.String({ maxLength: MAX_COMMENT }),
      }),
      { minItems: 1, maxItems: 100 },
    ),
  }),
});

export const CreateCategoryBody = Strict({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  evidenceRequired: Type.Boolean(),
});
