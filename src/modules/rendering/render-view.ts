import type { Readable } from 'node:stream';
import { FORMATS } from './renderer.ts';
import type { RenderRow } from './repo.ts';

/** The spec's polling interval. */
export const POLL_SECONDS = 60;

/** A render as the API shows it. */
export function toRender(r: RenderRow) {
  const f = FORMATS[r.format];
  const done = r.status === 'completed';
  return {
    reference: r.id,
    compositionReference: r.composition_id,
    imageReference: r.image_id,
    status: r.status,
    thumbhash: done ? r.thumbhash : null,
    media: done ? { mimeType: f.mimeType, extension: f.extension, size: r.media_size! } : null,
    thumbnail: done ? { mimeType: f.mimeType, extension: f.extension, size: r.thumbnail_size! } : null,
    created: r.created_at.toISOString(),
    completed: r.completed_at ? r.completed_at.toISOString() : null,
    failureReason: r.status === 'failed' ? r.failure_reason : null,
  };
}

export type RenderFile =
  | { ready: false; retryAfter: number }
  | { ready: true; stream: Readable; size: number; mimeType: string; filename: string };
