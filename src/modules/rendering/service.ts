import type { RenderingDeps } from './deps.ts';
import { type RenderingImport, importRendering, setCompositionAvailable } from './import.ts';
import { renderingLibrary } from './library.ts';
import { photoScenes } from './photo/scenes.ts';
import { productMockups } from './product-mockups.ts';
import { renderReads } from './render-reads.ts';
import { renderService } from './renders.ts';

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
    productMockups: (orgId: string, productRef: string) => productMockups(deps, orgId, productRef),
    composition: lib.composition,
    ...renders,
    ...renderReads(deps.db),
    /** A partner's own photos as private scenes (extension). */
    photoScenes: photoScenes(deps),
    importRendering: (input: RenderingImport) => importRendering(deps, input),
    setCompositionAvailable: (ref: string, available: boolean) => setCompositionAvailable(deps, ref, available),
  };
}
