import type { AdminContext } from './admin-context.ts';
import { CASE_TYPES, isCaseType } from './casetypes.ts';
import { storeFiles } from './files.ts';
import { layerImages, printSpecFor } from './geometry.ts';
import { forwardOnly, stageOn } from './lifecycle.ts';
import { catalogWrites as w } from './admin-repo.ts';
import type { PrintSpec } from './repo.ts';
import { samePrint } from './writer.ts';
import type { ProductStatus } from './schemas.ts';
import { type ProductFiles, allFiles, placeFiles } from './product-files.ts';

/**
 * Moves every product with a device to its stage on `catalogDate` (YYYY-MM-DD, default today;
 * forward only, with the usual events). A print product leaving `announced` without a print
 * specification gets one, and layers, from its device and case type; a case whose stored spec is
 * not the one its geometry gives gets that one and its layers drawn anew, logged, since they take
 * the place of the stored ones, an operator's included. An archived product is not made: it gets
 * the spec but no layers drawn, as at import (derive.ts).
 */
export function lifecycleAdvance(ctx: AdminContext) {
  const { db, clock, blobs, log } = ctx.deps;

  /** Which products move where, and the print specifications and layers those leaving `announced` need. */
  async function plan(date: Date) {
    const moves: Array<{ id: string; to: ProductStatus }> = [];
    const extra = new Map<string, { print: PrintSpec; files: ProductFiles }>();
    for (const r of await w.productsWithDevices(db)) {
      const to = forwardOnly(r.status, stageOn(r.geometry.releaseDate, date)) as ProductStatus;
      const ct = r.printable && isCaseType(r.case_type) ? CASE_TYPES[r.case_type] : null;
      const spec = ct ? printSpecFor(r.geometry, ct) : null;
      // A spec stored under an older print-area rule: spec and layers are drawn anew, so the
      // product's timestamps and layer images follow what it answers and prints.
      const stale = !!spec && !!r.print_spec && !samePrint(r.print_spec, spec);
      if (to === r.status && !stale) continue;
      moves.push({ id: r.id, to });
      if (!spec || (!stale && (r.print_spec || to === 'announced'))) continue;
      const draw = to !== 'archived' && (stale || !r.has_layers);
      if (draw && r.has_layers)
        log.info(
          { product: r.id },
          'print spec and layers drawn anew from the geometry, in place of the stored layers',
        );
      const images = draw ? await layerImages(r.geometry, ct!) : {};
      const layers = Object.entries(images).map(([name, b]) => ({ name, file: { base64: b.toString('base64') } }));
      extra.set(r.id, { print: spec, files: draw ? await placeFiles({ layers }, `product ${r.id}`) : {} });
    }
    return { moves, extra };
  }

  return async function advanceLifecycle(catalogDate?: string) {
    const date = catalogDate ? new Date(`${catalogDate}T00:00:00Z`) : clock.now();
    const { moves, extra } = await plan(date);
    await storeFiles(
      blobs,
      [...extra.values()].flatMap((e) => allFiles(e.files)),
    );
    return ctx.write(async (tx) => {
      const moved: Array<{ reference: string; name: string; from: string; to: string }> = [];
      for (const { id, to } of moves) {
        const cur = (await w.lockProduct(tx, id))!;
        const target = forwardOnly(cur.status, to);
        if (target === cur.status && !extra.has(id)) continue;
        const view = (await w.product(tx, id))!;
        const item = (await w.lockItem(tx, cur.item_id))!;
        const e = extra.get(id);
        await ctx.saveProduct(
          tx,
          cur,
          {
            productgroupId: cur.productgroup_id,
            itemId: cur.item_id,
            privateOrganizationId: view.private_organization_id,
            name: cur.name,
            status: target,
            printable: cur.printable,
            print: e?.print,
          },
          e?.files ?? {},
          item,
          `product ${id} (${cur.name})`,
        );
        if (target !== cur.status) moved.push({ reference: id, name: cur.name, from: cur.status, to: target });
      }
      return { catalogDate: date.toISOString().slice(0, 10), moved };
    });
  };
}
