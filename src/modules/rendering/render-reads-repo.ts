import type { Executor } from '../../platform/db/index.ts';

/** The dashboard's reads of renders: rendertokens spent per hour, and the renders of artwork. */
export const renderReadsRepo = {
  /**
   * Rendertokens spent per hour since `since` (each render is charged its composition's cost when
   * requested). Hours, not days: the week's days are Amsterdam days, and its offsets are whole hours.
   */
  async rendertokensPerHour(ex: Executor, orgId: string, since: Date) {
    return ex.query<{ hour: Date; tokens: number }>(
      `SELECT date_trunc('hour', r.created_at) AS hour, sum(c.token_cost)::int AS tokens
         FROM renders r JOIN compositions c ON c.id = r.composition_id
        WHERE r.organization_id = $1 AND r.created_at >= $2
        GROUP BY 1 ORDER BY 1`,
      [orgId, since],
    );
  },

  /** The newest completed render of each image. */
  async latestRenders(ex: Executor, orgId: string, imageIds: string[]) {
    if (imageIds.length === 0) return [];
    return ex.query<{ image_id: string; id: string }>(
      `SELECT DISTINCT ON (image_id) image_id, id FROM renders
       WHERE organization_id = $1 AND image_id = ANY($2::text[]) AND status = 'completed'
       ORDER BY image_id, completed_at DESC`,
      [orgId, imageIds],
    );
  },

  /** The newest completed renders of any of the images, at most 12. */
  async completedRenders(ex: Executor, orgId: string, imageIds: string[]) {
    if (imageIds.length === 0) return [];
    return ex.query<{ id: string; image_id: string }>(
      `SELECT id, image_id FROM renders WHERE organization_id = $1 AND image_id = ANY($2::text[])
         AND status = 'completed' ORDER BY completed_at DESC LIMIT 12`,
      [orgId, imageIds],
    );
  },
};
