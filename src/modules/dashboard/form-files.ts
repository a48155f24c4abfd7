import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { unstorableText } from '../../platform/http/hardening.ts';
import { type UploadedFile, receiveToFile } from '../../platform/http/upload-file.ts';
import { admitUpload, uploadTicketOf, uploadTooLarge } from '../../platform/http/upload.ts';
import { csrfRefused, sameToken } from './form-gate.ts';
import type { FormBody } from './forms.ts';

/** The one file a dashboard form takes: its field and the most bytes it may have. */
export interface FileField {
  field: string;
  maxBytes: number;
}

/** Room for the text fields and the part headers of a form beside its file. */
export const FORM_OVERHEAD_BYTES = 64 * 1024;
/** A file form has a token and a few text fields; more is not a browser sending it. */
const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 16 * 1024;

const mediaType = (header: string | undefined) => (header ?? '').split(';')[0].trim().toLowerCase();
/** Refused while parts are unread: the socket closes after the answer, so the rest is never read. */
const closing = { headers: { connection: 'close' } };

/**
 * Admits a multipart form from its headers, after the form gate found its session: `400` without a
 * boundary, `413` when Content-Length is over the route's limit, then its share of the upload memory
 * budget (`UPLOAD_MEMORY_MB`), as `POST /v2/images` takes it. A plain form passes untouched.
 */
export async function admitFileForm(req: FastifyRequest, reply: FastifyReply, tempDir: string): Promise<void> {
  const contentType = req.headers['content-type'];
  if (mediaType(contentType) !== 'multipart/form-data') return;
  if (!/;\s*boundary=("[^"]{1,70}"|[^;\s]{1,70})/i.test(contentType ?? ''))
    throw new ApiError('invalid_request', 'The multipart form has no boundary in its Content-Type', closing);
  await admitUpload(req, reply, {
    limit: req.routeOptions.bodyLimit ?? 0,
    tempDir,
    owner: req.dashboardSession?.user.organization_id ?? null,
  });
}

/**
 * Reads a multipart form as it arrives: text fields into the body, the one file straight to a
 * temporary file (never whole in memory), removed with the request's upload ticket. The file is
 * read only after the form's CSRF token, which the dashboard's forms send first, matched the
 * session's; a file under another field name is refused unread.
 */
export async function readFileForm(req: FastifyRequest, spec: FileField, tempDir: string): Promise<FormBody> {
  const ticket = uploadTicketOf(req);
  if (!ticket) throw new Error('a multipart form was read without being admitted');
  const body: FormBody = {};
  const files: NonNullable<FormBody['__files']> = {};
  const parts = req.parts({
    limits: {
      // One byte over, so the file's own stream reports the limit with the service's message.
      fileSize: spec.maxBytes + 1,
      files: 1,
      fields: MAX_FIELDS,
      parts: MAX_FIELDS + 1,
      fieldSize: MAX_FIELD_BYTES,
      headerPairs: 16,
    },
  });
  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        addField(body, part);
        continue;
      }
      if (part.fieldname !== spec.field)
        throw new ApiError(
          'invalid_request',
          `This form takes its file in the field "${spec.field}", not "${part.fieldname}"`,
          closing,
        );
      const token = body._csrf;
      if (typeof token !== 'string' || !sameToken(token, req.dashboardSession?.csrf ?? '')) throw csrfRefused(closing);
      const upload = await toFile(part, spec.maxBytes, tempDir);
      ticket.keep(upload);
      files[part.fieldname] = { filename: part.filename, contentType: part.mimetype.toLowerCase(), upload };
    }
  } catch (err) {
    throw formError(err, spec);
  }
  const problem = unstorableText(body, 'body');
  if (problem) throw new ApiError('invalid_request', problem);
  body.__files = files;
  return body;
}

function addField(body: FormBody, part: Extract<Multipart, { type: 'field' }>): void {
  if (part.valueTruncated)
    throw new ApiError(
      'payload_too_large',
      `The field "${part.fieldname}" is longer than ${MAX_FIELD_BYTES} bytes`,
      closing,
    );
  const name = part.fieldname;
  const text = String(part.value);
  const prev = body[name];
  body[name] = prev === undefined ? text : Array.isArray(prev) ? [...prev, text] : [prev, text];
}

/** Errors of the disk (a write failing) stay what they are; see `formError`. */
class DiskError extends Error {
  constructor(readonly original: Error) {
    super(original.message);
  }
}

function toFile(part: MultipartFile, maxBytes: number, dir: string): Promise<UploadedFile> {
  return new Promise((resolve, reject) =>
    receiveToFile(part.file, { dir, limit: maxBytes, tooLarge: () => uploadTooLarge(maxBytes) }, (err, file) => {
      if (err) reject(err instanceof ApiError ? err : new DiskError(err));
      else resolve(file!);
    }),
  );
}

/** What the parser refused, as the dashboard's `{code, message}`: never a 500 for a sender's mistake. */
function formError(err: unknown, spec: FileField): unknown {
  if (err instanceof ApiError) return err;
  if (err instanceof DiskError) return err.original;
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return uploadTooLarge(spec.maxBytes);
    case 'FST_FILES_LIMIT':
      return new ApiError('payload_too_large', `This form takes one file, in the field "${spec.field}"`, closing);
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new ApiError('payload_too_large', `The form has more than ${MAX_FIELDS} fields`, closing);
    case 'FST_MP_PREMATURE_CLOSE':
      return new ApiError('invalid_request', 'The form was interrupted before it was complete', closing);
    default:
      // The parser's own refusals: a truncated body, a malformed part header, a field named like a
      // property of every object.
      return new ApiError('invalid_request', 'The multipart form is malformed or incomplete', closing);
  }
}
