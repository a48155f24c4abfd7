import type { RenderingDeps } from './deps.ts';
import type { Generator } from './generated.ts';
import { renderingRepo } from './repo.ts';

/**
 * What a composition shows: `3d` a case in a 3D setting (a stage drawn at run time, an imported UV
 * template), `photo` a partner's own photo scene, `front` the straight-on product
 * shot, `scene` an imported flat template (a print area pasted onto a background).
 */
export type MockupKind = '3d' | 'photo' | 'front' | 'scene';

export function mockupKind(c: { uv_blob_key: string | null; generator: Generator | null }): MockupKind {
  switch (c.generator?.kind) {
    case 'stage':
      return '3d';
    case 'photo':
      return 'photo';
    case 'front':
      return 'front';
    default:
      return c.uv_blob_key ? '3d' : 'scene';
  }
}

export interface ProductMockup {
  compositionReference: string;
  /** The scene's name and the perspective's, as the partner API shows them. */
  scene: string;
  perspective: string;
  kind: MockupKind;
}

/**
 * The mockups a product can be shown with (a shop's product pictures): the partner's own photo
 * scenes first, then its 3D scenes; its straight-on shot when it has neither. One per scene and
 * view: the same view in another size or format shows nothing new.
 */
export async function productMockups(deps: RenderingDeps, orgId: string, productRef: string): Promise<ProductMockup[]> {
  const rows = await renderingRepo.productCompositions(deps.db, orgId, productRef);
  const seen = new Set<string>();
  const mockups: ProductMockup[] = [];
  for (const c of rows) {
    const view = c.generator && 'view' in c.generator ? c.generator.view : c.generator ? '' : c.perspective_id;
    const key = `${c.scene_id} ${view}`;
    if (seen.has(key)) continue;
    seen.add(key);
    mockups.push({
      compositionReference: c.id,
      scene: c.scene_name,
      perspective: c.perspective_name,
      kind: mockupKind(c),
    });
  }
  const of = (k: MockupKind) => mockups.filter((m) => m.kind === k);
  const shown = [...of('photo'), ...of('3d')];
  return shown.length ? shown : of('front').slice(0, 1);
}
