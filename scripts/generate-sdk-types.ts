/**
 * Generates packages/sdk/src/generated.ts from the service's own OpenAPI document: the app is
 * built in-process on a throwaway embedded database and asked for its document, so the SDK's
 * types can never drift from the routes' schemas without test/sdk/generated.test.ts noticing.
 *
 *   npm run sdk:generate
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile } from 'json-schema-to-typescript';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { ManualClock } from '../src/platform/clock.ts';
import { migrate } from '../src/platform/db/migrate.ts';
import { PgliteDb } from '../src/platform/db/pglite.ts';
import { MemoryRateLimitStore } from '../src/platform/ratelimit/index.ts';
import { createServices } from '../src/services.ts';

export const GENERATED_FILE = resolve(import.meta.dirname, '..', 'packages', 'sdk', 'src', 'generated.ts');

type Json = any;

/** The document as the test environment serves it (test helpers included). */
export async function openApiDocument(): Promise<Json> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pod-sdk-gen-'));
  const db = await PgliteDb.open({});
  try {
    await migrate(db);
    const config = loadConfig({ APP_ENV: 'test', DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://127.0.0.1:3000' });
    const s = createServices({
      config,
      db,
      clock: new ManualClock(new Date('2026-01-01T00:00:00Z')),
      log: pino({ level: 'silent' }) as never,
      rateLimits: new MemoryRateLimitStore(),
      secretKey: 'sdk-generator',
    });
    const app = await buildApp(s, { operatorToken: 'sdk-generator' });
    await app.ready();
    const doc = structuredClone(app.swagger());
    await app.close();
    await s.worker.stop();
    return doc;
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Naming: operations are grouped by the first path segment into resources (client.orders.*),
// and the method name is the operationId without the resource's noun (createOrder -> create).

/** Segments whose operations belong to another resource than their own name suggests. */
const RESOURCE_BY_SEGMENT: Record<string, string> = {
  'test-helpers': 'testHelpers',
  'claim-package-missing': 'claims',
  'claim-item-issues': 'claims',
  'lookup-composition': 'compositions',
  quote: 'orders',
};

/** Where the generic rule gives a poor name. Unknown future operations still get a method. */
const METHOD_OVERRIDES: Record<string, [resource: string, method: string]> = {
  lookupProductReferenceByLegacySku: ['products', 'lookupByLegacySku'],
  lookupOrderByCustomIdentifier: ['orders', 'lookupByCustomIdentifier'],
  lookupOrderReferenceByCustomIdentifier: ['orders', 'lookupByCustomIdentifier'],
  quoteShipping: ['orders', 'quote'],
  cancelOrderlines: ['orders', 'cancel'],
  lookupComposition: ['compositions', 'lookup'],
  claimPackageMissing: ['claims', 'createPackageMissing'],
  claimItemIssues: ['claims', 'createItemIssues'],
};

const camel = (s: string) => s.replace(/[-_]+([a-z0-9])/gi, (_m, c: string) => c.toUpperCase());
const pascal = (s: string) => camel(s).replace(/^./, (c) => c.toUpperCase());
const words = (s: string) => s.split(/(?=[A-Z])/).map((w) => w.toLowerCase());

function singular(w: string): string {
  if (w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (/(ss|ch|sh|x)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

function methodName(operationId: string, resource: string): string {
  let ws = words(operationId);
  if (resource === 'testHelpers' && ws[0] === 'test' && ws.length > 1) ws = ws.slice(1);
  const noun = words(resource);
  const same = (a: string, b: string) => a === b || singular(a) === singular(b);
  for (let i = 0; i + noun.length <= ws.length; i++) {
    if (noun.every((n, j) => same(ws[i + j], n)) && ws.length > noun.length) {
      ws = [...ws.slice(0, i), ...ws.slice(i + noun.length)];
      break;
    }
  }
  return ws.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

// ---------------------------------------------------------------------------------------------

const HTTP_METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface Operation {
  id: string;
  method: string;
  path: string;
  resource: string;
  name: string;
  summary: string;
  description: string;
  pathParams: string[];
  query: Array<{ name: string; required: boolean; schema: Json; description?: string }>;
  bodyKind: 'json' | 'binary' | 'none';
  bodyRequired: boolean;
  bodySchema: Json;
  success: number;
  resultKind: 'json' | 'binary' | 'empty' | 'page';
  responseSchema: Json;
  pageKey: string | null;
  pending: boolean;
}

const isBinary = (schema: Json) => schema?.type === 'string' && schema?.format === 'binary';

function jsonContent(content: Json): Json | undefined {
  if (!content) return undefined;
  return content['application/json']?.schema;
}

function collectOperations(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      if (!op.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const segment = path.replace(/^\/v2\//, '').split('/')[0];
      const override = METHOD_OVERRIDES[op.operationId];
      const resource = override?.[0] ?? RESOURCE_BY_SEGMENT[segment] ?? camel(segment);
      const name = override?.[1] ?? methodName(op.operationId, resource);
      const params: Json[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const query = params
        .filter((p) => p.in === 'query')
        .map((p) => ({ name: p.name, required: !!p.required, schema: p.schema ?? {}, description: p.description }));
      const content = op.requestBody?.content ?? {};
      const bodyKind = content['application/json'] ? 'json' : content['application/octet-stream'] ? 'binary' : 'none';
      const successes = Object.keys(op.responses ?? {})
        .map(Number)
        .filter((s) => s >= 200 && s < 300)
        .sort();
      const success = successes.find((s) => s !== 202) ?? successes[0] ?? 200;
      const res = op.responses?.[String(success)] ?? {};
      const resContent = res.content ?? {};
      const resSchema = jsonContent(resContent);
      let resultKind: Operation['resultKind'];
      if (!res.content || Object.keys(resContent).length === 0) resultKind = 'empty';
      else if (!resSchema || isBinary(resSchema)) resultKind = 'binary';
      else resultKind = 'json';
      let pageKey: string | null = null;
      if (resultKind === 'json' && resSchema?.properties?.nextCursor && query.some((q) => q.name === 'cursor')) {
        const arrays = Object.entries<Json>(resSchema.properties).filter(([, v]) => v?.type === 'array');
        if (arrays.length === 1) {
          pageKey = arrays[0][0];
          resultKind = 'page';
        }
      }
      ops.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        resource,
        name,
        summary: op.summary ?? '',
        description: op.description ?? '',
        pathParams,
        query,
        bodyKind,
        bodyRequired: !!op.requestBody?.required,
        bodySchema: bodyKind === 'json' ? content['application/json'].schema : null,
        success,
        resultKind,
        responseSchema: resultKind === 'json' || resultKind === 'page' ? resSchema : null,
        pageKey,
        pending: successes.includes(202),
      });
    }
  }
  ops.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const seen = new Map<string, string>();
  for (const op of ops) {
    const key = `${op.resource}.${op.name}`;
    if (seen.has(key)) op.name = op.id;
    seen.set(`${op.resource}.${op.name}`, op.id);
  }
  return ops;
}

/** Titles and ids would become duplicate named declarations across compile calls; refs become names. */
function prepare(schema: Json, root = true): Json {
  if (Array.isArray(schema)) return schema.map((s) => prepare(s, false));
  if (!schema || typeof schema !== 'object') return schema;
  if (typeof schema.$ref === 'string') {
    const m = /^#\/components\/schemas\/(.+)$/.exec(schema.$ref);
    if (m) return { tsType: componentName(m[1]) };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries<Json>(schema)) {
    if (k === '$id' || k === 'examples' || k === 'example' || (k === 'title' && !root)) continue;
    if (k === 'properties' && v && typeof v === 'object') {
      out.properties = Object.fromEntries(Object.entries<Json>(v).map(([p, s]) => [p, prepare(s, false)]));
    } else {
      out[k] = typeof v === 'object' ? prepare(v, false) : v;
    }
  }
  if (isBinary(out)) return { tsType: 'Blob', description: out.description };
  return out;
}

const componentName = (name: string) => (name === 'Error' ? 'ErrorBody' : pascal(name));

async function toType(schema: Json, name: string): Promise<string> {
  const ts = await compile(prepare(schema), name, {
    bannerComment: '',
    additionalProperties: false,
    ignoreMinAndMaxItems: true,
    unknownAny: true,
    strictIndexSignatures: false,
    format: true,
    declareExternallyReferenced: true,
    $refOptions: { resolve: { external: false, file: false, http: false } },
  });
  return ts.trim();
}

function querySchema(op: Operation): Json {
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(
      op.query.map((q) => [q.name, { ...q.schema, ...(q.description ? { description: q.description } : {}) }]),
    ),
    required: op.query.filter((q) => q.required).map((q) => q.name),
  };
}

const str = (s: string) => JSON.stringify(s);

/**
 * The JSDoc of one method, from the operation's summary and description: the client's methods are
 * mapped from `Resources`, so editors show this comment on `client.orders.create` and friends.
 */
function methodDoc(op: Operation): string[] {
  const text = (t: string) => t.replace(/\*\//g, '*\\/').trim();
  const lines = [`${text(op.summary) || op.id}.`.replace(/\.\.$/, '.')];
  if (op.description) lines.push('', ...text(op.description).split('\n'));
  lines.push('', `\`${op.method} ${op.path}\` (operation \`${op.id}\`).`);
  return ['    /**', ...lines.map((l) => (l ? `     * ${l}` : '     *')), '     */'];
}

/** The full text of generated.ts for `doc`. */
export async function generateSdkTypes(doc: Json): Promise<string> {
  const ops = collectOperations(doc);
  const out: string[] = [
    '/* eslint-disable */',
    '// biome-ignore-all lint: generated code',
    `// Generated by scripts/generate-sdk-types.ts from the OpenAPI document of "${doc.info?.title}" ${doc.info?.version}.`,
    '// Do not edit: run `npm run sdk:generate`. test/sdk/generated.test.ts fails when this file is stale.',
    '',
  ];

  for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
    out.push(await toType(schema, componentName(name)), '');
  }

  const typeNames = new Map<string, { body?: string; query?: string; response?: string }>();
  for (const op of ops) {
    const base = pascal(op.id);
    const names: { body?: string; query?: string; response?: string } = {};
    out.push(`// ${op.method} ${op.path}${op.summary ? ` - ${op.summary}` : ''}`);
    if (op.bodyKind === 'json' && op.bodySchema) {
      names.body = `${base}Body`;
      out.push(await toType(op.bodySchema, names.body));
    }
    if (op.query.length > 0) {
      names.query = `${base}Query`;
      out.push(await toType(querySchema(op), names.query));
    }
    if (op.responseSchema) {
      names.response = `${base}Response`;
      out.push(await toType(op.responseSchema, names.response));
    }
    out.push('');
    typeNames.set(op.id, names);
  }

  out.push(
    '/** What the client needs to call each operation at run time. */',
    'export interface OperationSpec {',
    "  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';",
    '  readonly path: string;',
    '  readonly resource: string;',
    '  readonly name: string;',
    '  readonly pathParams: readonly string[];',
    '  readonly query: readonly string[];',
    "  readonly body: 'json' | 'binary' | 'none';",
    '  readonly bodyRequired: boolean;',
    '  readonly success: number;',
    "  readonly result: 'json' | 'binary' | 'empty' | 'page';",
    '  /** The list field of a paginated response. */',
    '  readonly pageKey: string | null;',
    '  /** Answers 202 with Retry-After while the file is not ready. */',
    '  readonly pending: boolean;',
    '}',
    '',
    'export const operations = {',
  );
  for (const op of ops) {
    out.push(
      `  ${op.id}: {`,
      `    method: ${str(op.method)},`,
      `    path: ${str(op.path)},`,
      `    resource: ${str(op.resource)},`,
      `    name: ${str(op.name)},`,
      `    pathParams: [${op.pathParams.map(str).join(', ')}],`,
      `    query: [${op.query.map((q) => str(q.name)).join(', ')}],`,
      `    body: ${str(op.bodyKind)},`,
      `    bodyRequired: ${op.bodyRequired},`,
      `    success: ${op.success},`,
      `    result: ${str(op.resultKind)},`,
      `    pageKey: ${op.pageKey ? str(op.pageKey) : 'null'},`,
      `    pending: ${op.pending},`,
      '  },',
    );
  }
  out.push(
    '} as const satisfies Record<string, OperationSpec>;',
    '',
    'export type OperationId = keyof typeof operations;',
    '',
  );

  out.push(
    '/** Types of each operation: positional path parameters, query, body, success result. */',
    'export interface Operations {',
  );
  for (const op of ops) {
    const n = typeNames.get(op.id)!;
    const queryRequired = op.query.some((q) => q.required);
    out.push(
      `  ${op.id}: {`,
      `    params: [${op.pathParams.map((p) => `${p}: string`).join(', ')}];`,
      `    query: ${n.query ?? 'undefined'};`,
      `    queryRequired: ${queryRequired};`,
      `    body: ${n.body ?? 'undefined'};`,
      `    bodyKind: ${str(op.bodyKind)};`,
      `    response: ${n.response ?? 'undefined'};`,
      `    result: ${str(op.resultKind)};`,
      `    item: ${op.pageKey && n.response ? `${n.response}[${str(op.pageKey)}][number]` : 'undefined'};`,
      '  };',
    );
  }
  out.push('}', '');

  const resources = new Map<string, Operation[]>();
  for (const op of ops) resources.set(op.resource, [...(resources.get(op.resource) ?? []), op]);
  out.push(
    '/** Operations by resource and method name: `client.orders.create` calls `createOrder`. */',
    'export interface Resources {',
  );
  for (const r of [...resources.keys()].sort()) {
    out.push(`  ${r}: {`);
    for (const op of resources.get(r)!.sort((a, b) => (a.name < b.name ? -1 : 1)))
      out.push(...methodDoc(op), `    ${op.name}: ${str(op.id)};`);
    out.push('  };');
  }
  out.push('}', '');
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

async function main(): Promise<void> {
  const text = await generateSdkTypes(await openApiDocument());
  writeFileSync(GENERATED_FILE, text);
  console.log(`wrote ${GENERATED_FILE} (${text.length} bytes)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
