import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { GENERATED_FILE, generateSdkTypes, openApiDocument } from '../../scripts/generate-sdk-types.ts';
import { Client, operations } from '../../packages/sdk/src/index.ts';

test('packages/sdk/src/generated.ts is what the generator writes from the current OpenAPI document', async () => {
  const doc = await openApiDocument();
  const expected = await generateSdkTypes(doc);
  const committed = readFileSync(GENERATED_FILE, 'utf8');
  if (committed !== expected) {
    const a = committed.split('\n');
    const b = expected.split('\n');
    let i = 0;
    while (i < Math.max(a.length, b.length) && a[i] === b[i]) i++;
    assert.fail(
      `the SDK types are stale: run \`npm run sdk:generate\` and commit the result.\n` +
        `first difference at line ${i + 1}:\n  committed: ${a[i] ?? '(end of file)'}\n  generated: ${b[i] ?? '(end of file)'}`,
    );
  }

  // Every documented operation has exactly one client method, and the table matches the document.
  const documented: string[] = [];
  for (const [path, item] of Object.entries<Record<string, { operationId: string }>>(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      documented.push(op.operationId);
      const spec = operations[op.operationId as keyof typeof operations];
      assert.ok(spec, `${op.operationId} is in the table`);
      assert.equal(spec.method, method.toUpperCase());
      assert.equal(spec.path, path);
      assert.equal(Client.operationFor(method, path), op.operationId);
    }
  }
  assert.deepEqual(Object.keys(operations).sort(), documented.sort());
  const methods = Object.values(operations).map((o) => `${o.resource}.${o.name}`);
  assert.equal(new Set(methods).size, methods.length, 'method names are unique');
});

test('the generator classifies operations: pages, downloads, uploads, empty answers', async () => {
  assert.equal(operations.listOrders.result, 'page');
  assert.equal(operations.listOrders.pageKey, 'orders');
  assert.equal(operations.downloadRenderMedia.result, 'binary');
  assert.equal(operations.downloadRenderMedia.pending, true);
  assert.equal(operations.uploadImage.body, 'binary');
  assert.equal(operations.cancelOrderlines.result, 'empty');
  assert.deepEqual(operations.getOrder.pathParams, ['orderReference']);
  assert.equal(operations.createOrder.resource, 'orders');
  assert.equal(operations.createOrder.name, 'create');
});
