import type { RenderingDeps } from './deps.ts';
import { type RenderingImport, importRendering, setCompositionAvailable } from './import.ts';
import { renderingLibrary } from './library.ts';
import { photoScenes } from './photo/scenes.ts';
import { renderReads } from './render-reads.ts';
import { renderService } from './renders.ts';
import { renderingRepo } from './repo.ts';

export type RenderingService = ReturnType<typeof renderingService>;
export type { ArtworkRender, TokenHour } from './render-reads.ts';

/** Scenes, perspectives, compositions, renders and rendertokens (spec: Rendering). */
export function renderingService(deps: RenderingDeps) {
  const lib = renderingLibrary(deps);
  const renders = renderService(deps, lib);
  return {
    listScenes: lib.listScenes,
    scene: lib.scene,
    listPerspectives: lib.listPerspectives,
    perspective: lib.perspective,
    lookupComposition: lib.lookupComposition,
    /**
     * The mockups a product can be shown with: its 3D scenes (baked UV templates) when it has any,
     * its straight-on shot otherwise; each as a composition reference and the scene's name.
     */
    async productMockups(
      orgId: string,
      productRef: string,
    ): Promise<Array<{ compositionReference: string; scene: string; kind: '3d' | 'front' | 'scene' }>> {
      const rows = await renderingRepo.productCompositions(deps.db, orgId, productRef);
      const kinded = rows.map((c) => ({
        compositionReference: c.id,
        scene: c.scene_name,
        kind: (c.uv_blob_key ? '3d' : c.generator ? 'front' : 'scene') as '3d' | 'front' | 'scene',
      }));
      const threeD = kinded.filter((c) => c.kind === '3d');
      return threeD.length ? threeD : kinded.filter((c) => c.kind === 'front').slice(0, 1);
    },
    composition: lib.composition,
    ...renders,
    ...renderReads(deps.db),
    /** A partner's own photos as private scenes (extension). */
    photoScenes: photoScenes(deps),
    importRendering: (input: RenderingImport) => importRendering(deps, input),
    setCompositionAvailable: (ref: string, available: boolean) => setCompositionAvailable(deps, ref, available),
  };
}
