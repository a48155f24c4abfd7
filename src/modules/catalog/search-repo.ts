import type { Executor } from '../../platform/db/index.ts';
import type { DeviceGeometry } from './devices.ts';
import { PRODUCT_VIEW, type ProductView } from './repo.ts';

export interface CatalogFilter {
  /** Part of the name, SKU or reference. */
  q?: string;
  brand?: string;
  device?: string;
  caseType?: string;
  stage?: string;
  /** One more is returned when there are more, so a page can offer the next one. */
  limit: number;
  offset: number;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The operator's catalog search: products by text, device brand and model, case type and stage. */
export const searchRepo = {
  async search(ex: Executor, f: CatalogFilter) {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: (n: number) => string, v: unknown) => {
      params.push(v);
      where.push(sql(params.length));
    };
    if (f.q)
      add(
        (n) => `(p.name ILIKE '%' || $${n} || '%' OR p.legacy_item_sku ILIKE '%' || $${n} || '%' OR p.id = $${n})`,
        likeEscape(f.q),
      );
    if (f.brand) add((n) => `d.brand = $${n}`, f.brand);
    if (f.device) add((n) => `d.key = $${n}`, f.device);
    if (f.caseType) add((n) => `g.case_type = $${n}`, f.caseType);
    if (f.stage) add((n) => `p.status = $${n}`, f.stage);
    params.push(f.limit + 1, f.offset);
    return ex.query<ProductView & { device: string | null; brand: string | null; picture: string | null }>(
      `${PRODUCT_VIEW.replace(
        'SELECT p.*,',
        `SELECT p.*, d.model AS device, d.brand,
                (SELECT m.filename FROM product_media m WHERE m.product_id = p.id AND m.kind IN ('example_image', 'example_render')
                  ORDER BY m.kind, m.position LIMIT 1) AS picture,`,
      )}
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY p.seq DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
  },

  /** What a drawing of a device product needs; null for products that fit no device. */
  async shape(ex: Executor, id: string) {
    const [row] = await ex.query<{ name: string; geometry: DeviceGeometry; case_type: string | null }>(
      `SELECT p.name, d.geometry, g.case_type
         FROM products p JOIN productgroups g ON g.id = p.productgroup_id JOIN devices d ON d.key = p.device_key
        WHERE p.id = $1`,
      [id],
    );
    return row ?? null;
  },

  async facets(ex: Executor) {
    const [brands, devices, caseTypes] = await Promise.all([
      ex.query<{ v: string }>('SELECT DISTINCT brand AS v FROM devices ORDER BY 1'),
      ex.query<{ v: string; label: string }>(
        `SELECT key AS v, brand || ' ' || model AS label FROM devices ORDER BY brand, release_date DESC`,
      ),
      ex.query<{ v: string }>(
        'SELECT DISTINCT case_type AS v FROM productgroups WHERE case_type IS NOT NULL ORDER BY 1',
      ),
    ]);
    return { brands, devices, caseTypes };
  },
};
