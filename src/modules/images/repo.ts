import { type Executor, organizationPage } from '../../platform/db/index.ts';
import type { Keyset } from '../../platform/http/pagination.ts';

export interface ImageRow {
  id: string;
  seq: number;
  organization_id: string;
  sha256: string;
  format: 'jpeg' | 'png';
  width: number;
  height: number;
  size: number;
  original_width: number | null;
  original_height: number | null;
  blob_key: string;
  created_at: Date;
}

const PAGE = organizationPage('$1', '$2');

export const imagesRepo = {
  /** Does nothing when the organization already has these bytes: the first upload keeps its reference. */
  async insertIfAbsent(ex: Executor, r: Omit<ImageRow, 'seq'>): Promise<void> {
    await ex.query(
      `INSERT INTO images (id, organization_id, sha256, format, width, height, size, original_width, original_height, blob_key, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (organization_id, sha256) DO NOTHING`,
      [
        r.id,
        r.organization_id,
        r.sha256,
        r.format,
        r.width,
        r.height,
        r.size,
        r.original_width,
        r.original_height,
        r.blob_key,
        r.created_at,
      ],
    );
  },
  async bySha(ex: Executor, orgId: string, sha256: string): Promise<ImageRow | null> {
    return (
      (
        await ex.query<ImageRow>('SELECT * FROM images WHERE organization_id = $1 AND sha256 = $2', [orgId, sha256])
      )[0] ?? null
    );
  },
  async byId(ex: Executor, orgId: string, id: string): Promise<ImageRow | null> {
    return (
      (await ex.query<ImageRow>('SELECT * FROM images WHERE organization_id = $1 AND id = $2', [orgId, id]))[0] ?? null
    );
  },
  async byIds(ex: Executor, orgId: string, ids: string[]): Promise<ImageRow[]> {
    return ex.query<ImageRow>('SELECT * FROM images WHERE organization_id = $1 AND id = ANY($2::text[])', [orgId, ids]);
  },
  async page(ex: Executor, orgId: string, ks: Keyset): Promise<ImageRow[]> {
    return ex.query<ImageRow>(`SELECT * FROM images WHERE ${PAGE.where} ORDER BY ${PAGE.order} LIMIT $3`, [
      orgId,
      ks.after,
      ks.limit,
    ]);
  },
};
