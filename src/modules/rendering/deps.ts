import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.ts';
import type { Db, Executor } from '../../platform/db/index.ts';
import { ApiError } from '../../platform/errors.ts';
import type { BlobStore } from '../../platform/storage.ts';

/**
 * What rendering needs from other modules, named here so the module depends on these shapes and
 * not on the other modules' internals.
 */
export interface CatalogDep {
  /** Throws 404 when the product does not exist or is not visible to the organization. */
  visibleProduct(organizationId: string, reference: string): Promise<unknown>;
  visibleProductgroup(organizationId: string, reference: string): Promise<unknown>;
}

export interface ImagesDep {
  imageForOrganization(
    organizationId: string,
    reference: string,
  ): Promise<{ reference: string; width: number; height: number; format: string; blobKey: string } | null>;
  readImage(blobKey: string): Promise<Buffer | null>;
}

export interface EventsDep {
  record(
    tx: Executor,
    event: { organizationId: string; type: string; data: Record<string, unknown> },
  ): Promise<unknown>;
}

export interface OrganizationDep {
  organizationRow(organizationId: string): Promise<{ rendertoken_limit: number }>;
}
import type { Cursors } from '../../platform/http/pagination.ts';

export interface RenderingDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  blobs: BlobStore;
  cursors: Cursors;
  catalog: CatalogDep;
  images: ImagesDep;
  organization: OrganizationDep;
  events: EventsDep | null;
}

/** Turns the catalog's 404 into `false`; anything else is a real error. */
export async function visible(check: () => Promise<unknown>): Promise<unknown | null> {
  try {
    return await check();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** The productgroup of a catalog product, whichever shape (API view or row) the catalog returns. */
export function productgroupOf(product: unknown): string | null {
  const p = (product ?? {}) as Record<string, unknown>;
  const inner = (p.product ?? p) as Record<string, unknown>;
  const ref =
    inner.productgroupReference ??
    inner.productgroup_id ??
    (inner.productgroup as Record<string, unknown> | undefined)?.reference;
  return typeof ref === 'string' ? ref : null;
}
