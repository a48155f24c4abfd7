import type { Keyset } from '../../platform/http/pagination.ts';
import { type Executor, organizationPage } from '../../platform/db/index.ts';
import type { OutputFormat } from './renderer.ts';

export interface RenderRow {
  id: string;
  seq: number;
  organization_id: string;
  composition_id: string;
  image_id: string;
  status: 'pending' | 'completed' | 'failed';
  format: OutputFormat;
  thumbhash: string | null;
  media_blob_key: string | null;
  media_size: number | null;
  thumbnail_blob_key: string | null;
  thumbnail_size: number | null;
  failure_reason: string | null;
  created_at: Date;
  completed_at: Date | null;
  failed_at: Date | null;
}

const PAGE = organizationPage('$1', '$2');

/** Renders and the rendertokens they use, per organization and week (part of `renderingRepo`). */
export const renderRows = {
  // --- renders ---
  async renders(ex: Executor, orgId: string, ks: Keyset, status: string | null): Promise<RenderRow[]> {
    return ex.query<RenderRow>(
      `SELECT * FROM renders WHERE ${PAGE.where} AND ($4::text IS NULL OR status = $4)
       ORDER BY ${PAGE.order} LIMIT $3`,
      [orgId, ks.after, ks.limit, status],
    );
  },
  async render(ex: Executor, orgId: string, id: string): Promise<RenderRow | null> {
    return (
      (await ex.query<RenderRow>('SELECT * FROM renders WHERE organization_id = $1 AND id = $2', [orgId, id]))[0] ??
      null
    );
  },
  async renderById(ex: Executor, id: string): Promise<RenderRow | null> {
    return (await ex.query<RenderRow>('SELECT * FROM renders WHERE id = $1', [id]))[0] ?? null;
  },
  /** Inserts the render unless one exists for the composition and image; `created` when it (again) needs rendering. */
  async insertRender(
    ex: Executor,
    r: {
      id: string;
      organizationId: string;
      compositionId: string;
      imageId: string;
      format: OutputFormat;
      createdAt: Date;
    },
  ): Promise<{ id: string; created: boolean }> {
    const inserted = await ex.query<{ id: string }>(
      `INSERT INTO renders (id, organization_id, composition_id, image_id, format, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (organization_id, composition_id, image_id) DO NOTHING RETURNING id`,
      [r.id, r.organizationId, r.compositionId, r.imageId, r.format, r.createdAt],
    );
    if (inserted.length === 1) return { id: inserted[0].id, created: true };
    // A failed render asked for again is tried again (the cause may be gone), once per failure.
    const retried = await ex.query<{ id: string }>(
      `UPDATE renders SET status = 'pending', failure_reason = NULL, failed_at = NULL
       WHERE organization_id = $1 AND composition_id = $2 AND image_id = $3 AND status = 'failed' RETURNING id`,
      [r.organizationId, r.compositionId, r.imageId],
    );
    if (retried.length === 1) return { id: retried[0].id, created: true };
    const existing = await ex.query<{ id: string }>(
      'SELECT id FROM renders WHERE organization_id = $1 AND composition_id = $2 AND image_id = $3',
      [r.organizationId, r.compositionId, r.imageId],
    );
    return { id: existing[0].id, created: false };
  },
  async completeRender(
    ex: Executor,
    id: string,
    done: { mediaKey: string; mediaSize: number; thumbKey: string; thumbSize: number; thumbhash: string; at: Date },
  ): Promise<RenderRow | null> {
    return (
      (
        await ex.query<RenderRow>(
          `UPDATE renders SET status = 'completed', media_blob_key = $2, media_size = $3, thumbnail_blob_key = $4, thumbnail_size = $5, thumbhash = $6, completed_at = $7
       WHERE id = $1 AND status = 'pending' RETURNING *`,
          [id, done.mediaKey, done.mediaSize, done.thumbKey, done.thumbSize, done.thumbhash, done.at],
        )
      )[0] ?? null
    );
  },
  async failRender(ex: Executor, id: string, reason: string, at: Date): Promise<RenderRow | null> {
    return (
      (
        await ex.query<RenderRow>(
          `UPDATE renders SET status = 'failed', failure_reason = $2, failed_at = $3 WHERE id = $1 AND status = 'pending' RETURNING *`,
          [id, reason.slice(0, 1000), at],
        )
      )[0] ?? null
    );
  },

  // --- rendertokens ---
  async used(ex: Executor, orgId: string, week: string): Promise<number> {
    return (
      (
        await ex.query<{ used: number }>(
          'SELECT used FROM rendertoken_usage WHERE organization_id = $1 AND week = $2',
          [orgId, week],
        )
      )[0]?.used ?? 0
    );
  },
  /**
   * Deducts `cost` when it fits under `limit`, atomically: the conditional UPDATE holds the row
   * lock, and a concurrent call re-checks the condition after it, so the last tokens go once.
   * Returns the new usage, or null when the tokens do not cover the cost.
   */
  async deduct(ex: Executor, orgId: string, week: string, cost: number, limit: number): Promise<number | null> {
    await ex.query(
      'INSERT INTO rendertoken_usage (organization_id, week, used) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING',
      [orgId, week],
    );
    const rows = await ex.query<{ used: number }>(
      'UPDATE rendertoken_usage SET used = used + $3 WHERE organization_id = $1 AND week = $2 AND used + $3 <= $4 RETURNING used',
      [orgId, week, cost, limit],
    );
    return rows[0]?.used ?? null;
  },
};
