import type { HoldRow } from './holds-repo.ts';
import { DOCUMENT_KINDS, type DocumentKind, type PrintFileRow, type ShipmentDocumentRow } from './repo.ts';

/** Path segments of the documents: `shipping-label`, `packing-slip`. */
export const documentSlug = (k: DocumentKind) => k.replace('_', '-');
export const documentOfSlug = (slug: string): DocumentKind | null =>
  DOCUMENT_KINDS.find((k) => documentSlug(k) === slug) ?? null;

export const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function printFileView(f: PrintFileRow) {
  return {
    orderlineIndex: f.line_index,
    copies: f.copies,
    status: f.status,
    size: f.size,
    ...('widthPx' in f.details ? { print: f.details } : {}),
    error: f.error,
    created: iso(f.created_at),
    modified: iso(f.updated_at),
  };
}

/** Why an order waits for production (null: it is not held). */
export function holdView(h: HoldRow | undefined) {
  return h ? { reason: h.reason, message: h.message, since: h.since.toISOString() } : null;
}

export function documentView(d: ShipmentDocumentRow) {
  return {
    kind: d.kind,
    status: d.status,
    size: d.size,
    error: d.error,
    created: iso(d.created_at),
    modified: iso(d.updated_at),
  };
}
