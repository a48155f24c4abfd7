import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type OperationDefinitionNode, buildSchema, getVariableValues, parse, validate } from 'graphql';
import * as D from '../../src/modules/storefronts/shopify/documents.ts';

const schema = buildSchema(
  readFileSync(new URL('../fixtures/shopify/admin-2026-07.subset.graphql', import.meta.url), 'utf8'),
);

function variableErrors(document: string, variables: Record<string, unknown>) {
  const doc = parse(document);
  const op = doc.definitions[0] as OperationDefinitionNode;
  return (getVariableValues(schema, op.variableDefinitions ?? [], variables).errors ?? []).map((e) => e.message);
}

const variant = {
  optionValues: [{ optionName: 'Model', name: 'iPhone 15' }],
  price: '29.90',
  sku: 'P-1',
  inventoryItem: { sku: 'P-1', tracked: true, requiresShipping: true },
  inventoryQuantities: [{ locationId: 'gid://shopify/Location/1', name: 'available', quantity: 1000 }],
};

describe('the Admin 2026-07 schema subset the stand-in validates against', () => {
  it('accepts every document the service sends', () => {
    for (const [name, document] of Object.entries(D.ALL_DOCUMENTS))
      assert.deepEqual(
        validate(schema, parse(document)).map((e) => e.message),
        [],
        name,
      );
  });

  it('accepts a productSet input shaped as the service sends it', () => {
    assert.deepEqual(
      variableErrors(D.PRODUCT_SET, {
        input: {
          title: 'Wave',
          status: 'ACTIVE',
          productOptions: [{ name: 'Model', values: [{ name: 'iPhone 15' }] }],
          variants: [variant],
        },
        identifier: null,
      }),
      [],
    );
  });

  it('refuses a variant without its required optionValues', () => {
    const { optionValues: _, ...noOptions } = variant;
    const errors = variableErrors(D.PRODUCT_SET, { input: { title: 'Wave', variants: [noOptions] } });
    assert.match(errors.join('\n'), /optionValues/);
  });

  it('refuses an input field Shopify does not have', () => {
    const errors = variableErrors(D.PRODUCT_SET, { input: { title: 'Wave', weight: 12 } });
    assert.match(errors.join('\n'), /weight/);
  });

  it('refuses a fulfillment event without its fulfillment or with an unknown status', () => {
    assert.match(
      variableErrors(D.FULFILLMENT_EVENT_CREATE, { event: { status: 'DELIVERED' } }).join('\n'),
      /fulfillmentId/,
    );
    assert.match(
      variableErrors(D.FULFILLMENT_EVENT_CREATE, {
        event: { fulfillmentId: 'gid://shopify/Fulfillment/1', status: 'LOST' },
      }).join('\n'),
      /LOST/,
    );
  });

  it('refuses a staged upload without its resource and a tracking-less fulfillment without line items', () => {
    assert.match(
      variableErrors(D.STAGED_UPLOADS_CREATE, { input: [{ filename: 'a.png', mimeType: 'image/png' }] }).join('\n'),
      /resource/,
    );
    assert.match(
      variableErrors(D.FULFILLMENT_CREATE, { fulfillment: { notifyCustomer: true } }).join('\n'),
      /lineItemsByFulfillmentOrder/,
    );
  });
});
