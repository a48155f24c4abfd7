/**
 * The operations of the service's OpenAPI document as the SDK generator names and calls them:
 * grouped by the first path segment into resources (`client.orders.*`), each with its method name,
 * parameters, body and result kind.
 */

export type Json = any;

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
export const pascal = (s: string) => camel(s).replace(/^./, (c) => c.toUpperCase());
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

export interface Operation {
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

export const isBinary = (schema: Json) => schema?.type === 'string' && schema?.format === 'binary';

function jsonContent(content: Json): Json | undefined {
  if (!content) return undefined;
  return content['application/json']?.schema;
}

export function collectOperations(doc: Json): Operation[] {
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
