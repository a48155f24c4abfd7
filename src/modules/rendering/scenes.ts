import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MOCKUP_ASSETS } from './generated.ts';
import type { OutputFormat } from './renderer.ts';

/** One 3D scene as the asset pipeline baked it (assets/mockups/index.json). */
export interface BakedScene {
  key: string;
  name: string;
  description: string;
  views: Array<{ key: string; name: string; output: { widthPx: number; heightPx: number; format: OutputFormat } }>;
  /** Device keys baked in every view. */
  devices: string[];
}

/** The baked scenes, or none when the pipeline has not run (the service works without them). */
export function bakedScenes(): BakedScene[] {
  try {
    return (JSON.parse(readFileSync(join(MOCKUP_ASSETS, 'index.json'), 'utf8')) as { scenes: BakedScene[] }).scenes;
  } catch {
    return [];
  }
}
