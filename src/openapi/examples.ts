import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Recorded by scripts/capture-openapi-examples.ts from a real run of every operation. */
export const EXAMPLES_FILE = resolve(import.meta.dirname, 'examples.json');

/** One operation's examples: its JSON request body and response bodies by status. */
export interface OperationExamples {
  request?: unknown;
  responses: Record<string, unknown>;
}

/** OpenAPI documents are untyped JSON. */
type Json = any;

let loaded: Record<string, OperationExamples> | undefined;

export function operationExamples(): Record<string, OperationExamples> {
  loaded ??= JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as Record<string, OperationExamples>;
  return loaded;
}

/**
 * @fastify/swagger's `transformObject`: puts each operation's recorded examples on its JSON
 * request body and responses. The document is cloned first because the generator may share
 * response objects between operations, and an example belongs to one operation only.
 */
export function attachExamples(document: { openapiObject?: Json; swaggerObject?: Json }): Json {
  if (!document.openapiObject) return document.swaggerObject;
  const doc = structuredClone(document.openapiObject);
  const examples = operationExamples();
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      const recorded = op?.operationId ? examples[op.operationId] : undefined;
      if (!recorded) continue;
      const request = op.requestBody?.content?.['application/json'];
      if (request && recorded.request !== undefined) request.example = recorded.request;
      for (const [status, body] of Object.entries(recorded.responses)) {
        const media = op.responses?.[status]?.content?.['application/json'];
        if (media && !isBinary(media.schema)) media.example = body;
      }
    }
  }
  return doc;
}

const isBinary = (schema: Json) => schema?.type === 'string' && schema.format === 'binary';
