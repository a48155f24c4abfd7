import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { badRequest } from '../errors.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  // removeAdditional must stay off: unknown fields are errors, not something to strip.
  const ajv = new Ajv({
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    // Every problem of a request is reported at once (details), not only the first.
    allErrors: true,
    strict: false,
  });
  addFormats(ajv);
  ajv.addFormat('date-time', { type: 'string', validate: isTimestamp });
  return ajv;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * ISO 8601 timestamps with an offset that JavaScript and PostgreSQL both hold: no leap second
 * (`:60` is an Invalid Date), years 1970-9999 (year 0 is out of PostgreSQL's range), a real day.
 */
export function isTimestamp(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  return Number.isFinite(Date.parse(value));
}

// Bodies are JSON and must carry real types; query strings and paths only have strings to coerce.
const bodyAjv = makeAjv(false);
const paramAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : paramAjv).compile(schema as object) as any;

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function fieldPath(part: string, err: ErrorObject): string {
  const segments = err.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (err.keyword === 'additionalProperties') segments.push(String(err.params.additionalProperty));
  if (err.keyword === 'required') segments.push(String(err.params.missingProperty));
  let out = PART_NAMES[part] ?? part;
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : `.${s}`;
  return out;
}

function describe(err: ErrorObject): string {
  switch (err.keyword) {
    case 'additionalProperties':
      return 'is not a documented field';
    case 'required':
      return 'is required';
    case 'type':
      return `must be ${err.params.type === 'integer' ? 'an integer' : `of type ${err.params.type}`}`;
    case 'enum':
      return `must be one of ${(err.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(err.params.allowedValue)}`;
    default:
      return err.message ?? 'is invalid';
  }
}

/** A body with thousands of bad lines gets the first hundred problems, which is enough to act on. */
const MAX_DETAILS = 100;

/** Turns ajv errors into a message that names the field, e.g. `body.order.orderlines[0].foo`. */
export function validationMessage(part: string, errors: ErrorObject[]): { message: string; details: unknown[] } {
  // anyOf/oneOf wrappers say little; prefer the concrete error underneath.
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const seen = new Set<string>();
  const list = (useful.length ? useful : errors)
    .map((e) => ({ field: fieldPath(part, e), problem: describe(e) }))
    .filter((d) => !seen.has(`${d.field} ${d.problem}`) && seen.add(`${d.field} ${d.problem}`))
    .slice(0, MAX_DETAILS);
  const first = list[0] ?? { field: PART_NAMES[part] ?? part, problem: 'is invalid' };
  const more = list.length > 1 ? ` (and ${list.length - 1} more problem${list.length > 2 ? 's' : ''} in details)` : '';
  return { message: `${first.field} ${first.problem}${more}`, details: list };
}

/**
 * What is wrong with a value against a schema, in Ajv's terms (empty when nothing is): the checker
 * the requests use, so a file read from disk needs no second validator loaded at start.
 */
export function schemaErrors(schema: object, value: unknown): ErrorObject[] {
  const validate = bodyAjv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []);
}

/** Checks a value outside a request (files read from disk, seed data) with the same rules and messages. */
export function checkAgainst<T>(schema: object, value: unknown, part: string): T {
  const validate = bodyAjv.compile(schema);
  if (!validate(value)) {
    const { message, details } = validationMessage(part, validate.errors ?? []);
    throw badRequest(message, 'invalid_request', details);
  }
  return value as T;
}
