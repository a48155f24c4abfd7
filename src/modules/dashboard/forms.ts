import type { FastifyInstance } from 'fastify';
import { ApiError, badRequest } from '../../platform/errors.ts';

/** A parsed form: text fields, and for multipart forms the uploaded files. */
export type FormBody = Record<string, string | string[] | undefined> & { __files?: Record<string, UploadedFile> };
export interface UploadedFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

/** The one value of a field (a repeated field keeps the last, as browsers send one). */
export function value(body: unknown, name: string): string | undefined {
  const v = (body as FormBody | null)?.[name];
  if (Array.isArray(v)) return v[v.length - 1];
  return typeof v === 'string' ? v : undefined;
}

export function values(body: unknown, name: string): string[] {
  const v = (body as FormBody | null)?.[name];
  if (Array.isArray(v)) return v;
  return typeof v === 'string' ? [v] : [];
}

/** Trimmed text; empty counts as absent. A required one that is absent is a 400 naming the label. */
export function text(
  body: unknown,
  name: string,
  label: string,
  opts: { required?: boolean; max?: number } = {},
): string | undefined {
  const v = value(body, name)?.trim();
  if (!v) {
    if (opts.required) throw badRequest(`${label} is required`);
    return undefined;
  }
  const max = opts.max ?? 200;
  if (v.length > max) throw badRequest(`${label} must have at most ${max} characters`);
  return v;
}

export const required = (body: unknown, name: string, label: string, max?: number) =>
  text(body, name, label, { required: true, max }) as string;

export function integer(
  body: unknown,
  name: string,
  label: string,
  opts: { min?: number; max?: number; required?: boolean } = {},
): number | undefined {
  const v = text(body, name, label, { required: opts.required, max: 20 });
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`${label} must be a whole number`);
  const n = Number(v);
  if (opts.min !== undefined && n < opts.min) throw badRequest(`${label} must be at least ${opts.min}`);
  if (opts.max !== undefined && n > opts.max) throw badRequest(`${label} must be at most ${opts.max}`);
  return n;
}

export const checked = (body: unknown, name: string) => value(body, name) !== undefined;

export function color(body: unknown, name: string, label: string): string | undefined {
  const v = text(body, name, label, { max: 7 });
  if (v !== undefined && !/^#[0-9a-fA-F]{6}$/.test(v)) throw badRequest(`${label} must be a colour like #1a2b3c`);
  return v?.toLowerCase();
}

export function file(body: unknown, name: string): UploadedFile | undefined {
  const f = (body as FormBody | null)?.__files?.[name];
  return f && f.data.length > 0 ? f : undefined;
}

function parseDisposition(header: string): { name?: string; filename?: string } {
  const out: { name?: string; filename?: string } = {};
  for (const m of header.matchAll(/;\s*(name|filename)="((?:[^"\\]|\\.)*)"/gi))
    out[m[1].toLowerCase() as 'name' | 'filename'] = m[2].replace(/\\(.)/g, '$1');
  return out;
}

/** Splits a multipart/form-data body (RFC 7578) into fields and files. */
export function parseMultipart(body: Buffer, contentType: string): FormBody {
  const m = /boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType);
  if (!m) throw badRequest('The multipart form has no boundary');
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  const out: FormBody = {};
  const files: Record<string, UploadedFile> = {};
  let pos = body.indexOf(boundary);
  if (pos < 0) throw badRequest('The multipart form is malformed');
  while (true) {
    pos += boundary.length;
    if (body.subarray(pos, pos + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) throw badRequest('The multipart form is malformed');
    const headers = body.subarray(pos, headerEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), boundary]), headerEnd + 4);
    if (next < 0) throw badRequest('The multipart form is malformed');
    const data = body.subarray(headerEnd + 4, next);
    const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    const { name, filename } = parseDisposition(disposition);
    if (name) {
      if (filename !== undefined) {
        files[name] = {
          filename,
          contentType: (/content-type:\s*([^\r\n;]*)/i.exec(headers)?.[1] ?? 'application/octet-stream')
            .trim()
            .toLowerCase(),
          data: Buffer.from(data),
        };
      } else {
        const prev = out[name];
        const text = data.toString('utf8');
        out[name] = prev === undefined ? text : Array.isArray(prev) ? [...prev, text] : [prev, text];
      }
    }
    pos = next + 2;
  }
  out.__files = files;
  return out;
}

/** Multipart forms (the logo upload) in the dashboard scope only; other routes keep their 415. */
export function installMultipart(scope: FastifyInstance): void {
  scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseMultipart(body as Buffer, request.headers['content-type'] ?? ''));
    } catch (err) {
      done(err instanceof ApiError ? err : badRequest('The multipart form is malformed'), undefined);
    }
  });
}
