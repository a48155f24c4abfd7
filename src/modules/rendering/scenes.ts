import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDevices } from '../catalog/devices.ts';
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

/**
 * The models the 3D scenes are baked for: the 10 newest flagships with final dimensions launched by
 * `date` (the demo catalog's date), newest first.
 */
export function flagships(date = '2026-11-24') {
  return loadDevices()
    .filter((d) => d.flagship && !d.preliminary && d.releaseDate <= date)
    .sort((a, b) => b.releaseDate.localeCompare(a.releaseDate) || a.key.localeCompare(b.key))
    .slice(0, 10);
}
