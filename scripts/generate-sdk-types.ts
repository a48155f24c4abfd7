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
import { type Json, type Operation, collectOperations, isBinary, pascal } from './sdk-operations.ts';

export const GENERATED_FILE = resolve(import.meta.dirname, '..', 'packages', 'sdk', 'src', 'generated.ts');

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

type TypeNames = { body?: string; query?: string; response?: string };

/** One named type per component schema, and per operation its body, query and response. */
async function declaredTypes(doc: Json, ops: Operation[], out: string[]): Promise<Map<string, TypeNames>> {
  for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
    out.push(await toType(schema, componentName(name)), '');
  }
  const typeNames = new Map<string, TypeNames>();
  for (const op of ops) {
    const base = pascal(op.id);
    const names: TypeNames = {};
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
  return typeNames;
}

/** `operations`: the run-time table the client calls each operation from. */
function operationsTable(ops: Operation[], out: string[]): void {
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
}

/** `Operations`: the compile-time types of each operation, by the names `declaredTypes` gave. */
function operationsInterface(ops: Operation[], typeNames: Map<string, TypeNames>, out: string[]): void {
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
}

/** `Resources`: operation ids by resource and method name, each with its JSDoc. */
function resourcesInterface(ops: Operation[], out: string[]): void {
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
  const typeNames = await declaredTypes(doc, ops, out);
  operationsTable(ops, out);
  operationsInterface(ops, typeNames, out);
  resourcesInterface(ops, out);
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
