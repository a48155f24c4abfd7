import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { operationExamples } from '../../src/openapi/examples.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

// The examples the /docs reference shows (recorded by scripts/capture-openapi-examples.ts) must
// exist for every operation and match the very schemas the document publishes.
describe('OpenAPI examples', () => {
  let t: TestApp;
  let doc: any;
  const operations: Array<{ where: string; op: any }> = [];
  before(async () => {
    t = await createTestApp();
    doc = (await call(t, 'GET', '/v2/openapi.json', { key: null })).data;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (METHODS.includes(method))
          operations.push({ where: `${op.operationId} (${method.toUpperCase()} ${path})`, op });
      }
    }
  });
  after(() => t.close());

  /** Compiles a schema of the document, with its `#/components/...` references resolvable. */
  function validatorFor(schema: any) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    return ajv.compile({ ...schema, components: doc.components });
  }

  function check(where: string, media: any, problems: string[]) {
    const validate = validatorFor(media.schema);
    if (!validate(media.example)) problems.push(`${where}: ${JSON.stringify(validate.errors).slice(0, 500)}`);
  }

  const isBinary = (schema: any) => schema?.type === 'string' && schema.format === 'binary';

  const nullable = (schema: any) =>
    schema?.anyOf?.some((branch: any) => branch.type === 'null') ||
    (Array.isArray(schema?.type) && schema.type.includes('null'));

  /**
   * The schema with each object's nullable properties required. Responses are open, so an example
   * recorded before a field existed still validates; but the service answers "none" as null rather
   * than leaving such a field out, so an example that lacks one predates it.
   */
  function withNullablesRequired(schema: any): any {
    if (Array.isArray(schema)) return schema.map(withNullablesRequired);
    if (!schema || typeof schema !== 'object') return schema;
    const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, withNullablesRequired(v)]));
    if (schema.type === 'object' && schema.properties) {
      const nullables = Object.keys(schema.properties).filter((k) => nullable(schema.properties[k]));
      out.required = [...new Set([...(schema.required ?? []), ...nullables])];
    }
    return out;
  }

  /** The nullable fields a success example lacks: "<path> <field>" each. */
  function missingNullables(media: any): string[] {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile({
      ...withNullablesRequired(media.schema),
      components: withNullablesRequired(doc.components),
    });
    if (validate(media.example)) return [];
    return (validate.errors ?? [])
      .filter((e) => e.keyword === 'required')
      .map((e) => `${e.instancePath || '/'} ${e.params.missingProperty}`);
  }

  it('has a request example for every JSON request body, and it validates', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const { where, op } of operations) {
      const media = op.requestBody?.content?.['application/json'];
      if (!media) continue;
      checked++;
      if (media.example === undefined) problems.push(`${where}: no request example`);
      else check(`${where} request`, media, problems);
    }
    assert.deepEqual(problems, []);
    assert.ok(checked >= 10, `${checked} JSON request bodies`);
  });

  it('has an example for every JSON success response, and it validates', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const { where, op } of operations) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const media = response.content?.['application/json'];
        if (!status.startsWith('2') || !media || isBinary(media.schema)) continue;
        checked++;
        if (media.example === undefined) problems.push(`${where}: no ${status} example`);
        else check(`${where} ${status}`, media, problems);
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(checked >= 50, `${checked} JSON success responses`);
  });

  it('shows every nullable field of a success response in its example (an example without one is stale)', () => {
    const problems: string[] = [];
    for (const { where, op } of operations) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const media = response.content?.['application/json'];
        if (!status.startsWith('2') || media?.example === undefined) continue;
        const missing = missingNullables(media);
        if (missing.length > 0) problems.push(`${where} ${status} lacks ${missing.join(', ')}`);
      }
    }
    assert.deepEqual(problems, [], 'run `npm run openapi:examples` to record the examples again');
  });

  it('finds a nullable field missing from a success example', () => {
    const get = operations.find(({ op }) => op.operationId === 'getOrder');
    assert.ok(get, 'getOrder is documented');
    const media = get.op.responses['200'].content['application/json'];
    const { upstreamOrder, ...order } = media.example.order;
    assert.equal(upstreamOrder, null, 'the example order was not made on a platform');
    assert.deepEqual(missingNullables({ schema: media.schema, example: { order } }), ['/order upstreamOrder']);
  });

  it('shows at least one error example per operation, each a valid Error', () => {
    const problems: string[] = [];
    for (const { where, op } of operations) {
      const errors = Object.entries<any>(op.responses).filter(
        ([status, r]) => Number(status) >= 400 && r.content?.['application/json']?.example !== undefined,
      );
      if (errors.length === 0) problems.push(`${where}: no error example`);
      for (const [status, r] of errors) check(`${where} ${status}`, r.content['application/json'], problems);
    }
    assert.deepEqual(problems, []);
  });

  it('records nothing for operations or statuses the document does not have', () => {
    const documented = new Map(operations.map(({ op }) => [op.operationId, op]));
    const stale: string[] = [];
    for (const [id, recorded] of Object.entries(operationExamples())) {
      const op = documented.get(id);
      if (!op) {
        stale.push(`${id}: not an operation`);
        continue;
      }
      if (recorded.request !== undefined && !op.requestBody?.content?.['application/json'])
        stale.push(`${id}: request example without a JSON body`);
      for (const status of Object.keys(recorded.responses)) {
        if (!op.responses[status]?.content?.['application/json'])
          stale.push(`${id}: ${status} is not a documented JSON response`);
      }
    }
    assert.deepEqual(stale, []);
  });

  it('rejects an example that does not match its schema', () => {
    const create = operations.find(({ op }) => op.operationId === 'createOrder');
    assert.ok(create, 'createOrder is documented');
    const media = create.op.requestBody.content['application/json'];
    const problems: string[] = [];
    check(
      'broken',
      { schema: media.schema, example: { order: { ...media.example.order, unknownField: 1 } } },
      problems,
    );
    check(
      'broken',
      { schema: media.schema, example: { order: { ...media.example.order, orderlines: 'none' } } },
      problems,
    );
    assert.equal(problems.length, 2);
  });
});
