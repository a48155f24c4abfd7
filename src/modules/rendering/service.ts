import type { RenderingDeps } from './deps.ts';
import { type RenderingImport, importRendering, setCompositionAvailable } from './import.ts';
import { renderingLibrary } from './library.ts';
import { renderService } from './renders.ts';

export type RenderingService = ReturnType<typeof renderingService>;

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
    composition: lib.composition,
    ...renders,
    importRendering: (input: RenderingImport) => importRendering(deps, input),
    setCompositionAvailable: (ref: string, available: boolean) => setCompositionAvailable(deps, ref, available),
  };
}
