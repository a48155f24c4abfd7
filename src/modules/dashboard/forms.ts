import { readFile } from 'node:fs/promises';
import { badRequest } from '../../platform/errors.ts';
import type { UploadedFile } from '../../platform/http/upload-file.ts';

/** A parsed form: text fields, and for multipart forms the uploaded files. */
export type FormBody = Record<string, string | string[] | undefined> & { __files?: Record<string, FormFile> };
/** A file of a multipart form, as received to a temporary file (see `readFileForm`). */
export interface FormFile {
  filename: string;
  contentType: string;
  upload: UploadedFile;
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

/** The file of a field; a browser sends an empty one when none was chosen, which counts as absent. */
export function file(body: unknown, name: string): FormFile | undefined {
  const f = (body as FormBody | null)?.__files?.[name];
  return f && f.upload.size > 0 ? f : undefined;
}

/** The bytes of a small form file (a logo, a bank statement): its route's limit bounds them. */
export const fileBytes = (f: FormFile): Promise<Buffer> => readFile(f.upload.path);
