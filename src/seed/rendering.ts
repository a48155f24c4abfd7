import type { SeedDeps } from './deps.ts';
import { drawTemplate, type SceneStyle } from '../modules/rendering/assets.ts';
import type { CompositionImport } from '../modules/rendering/import.ts';
import type { PrintArea } from '../modules/rendering/renderer.ts';

export interface RenderingSeed {
  scenes: Record<string, string>;
  perspectives: Record<string, string>;
  compositions: Record<string, string>;
}

const STUDIO: SceneStyle = { from: '#dfe7ef', to: '#f7f3ee', surface: '#c9b59a' };
const MARBLE: SceneStyle = { from: '#f4f4f2', to: '#e6e4df', surface: '#d9d6cf' };
const CLOSEUP: SceneStyle = { from: '#263238', to: '#455a64', surface: '#37474f' };

/** Geometry per perspective: backgrounds are drawn at the perspective's output size. */
const LAYOUT: Record<string, { size: { width: number; height: number }; area: PrintArea; style: SceneStyle }> = {
  'demo-studio-front': {
    size: { width: 800, height: 600 },
    area: { x: 330, y: 110, width: 160, height: 320, rotation: -10 },
    style: STUDIO,
  },
  'demo-marble-top': {
    size: { width: 600, height: 800 },
    area: { x: 200, y: 180, width: 200, height: 400, rotation: 8 },
    style: MARBLE,
  },
  'demo-ip15-closeup': {
    size: { width: 512, height: 512 },
    area: { x: 176, y: 96, width: 160, height: 320, rotation: 15 },
    style: CLOSEUP,
  },
};

/**
 * Demo scenes, perspectives and compositions for the demo print products, through the operator
 * import (idempotent by key). A public scene that allows product perspectives, a scene private to
 * the first organization, perspectives in three formats and sizes, token costs 2, 3 and 5, and one
 * composition that is no longer available.
 */
export async function seedRendering(
  s: Pick<SeedDeps, 'catalog' | 'rendering'>,
  orgIds: string[],
): Promise<RenderingSeed> {
  const products = new Map<string, { reference: string; group: string }>();
  // Only the products composed below: the catalog holds hundreds.
  const used = new Set([
    'iPhone 15 Clear Case',
    'iPhone 14 Clear Case',
    'Galaxy S24 Clear Case',
    'Demo Walnut Leather Case iPhone 15',
    'iPhone 15 Tough Case',
    'iPhone 18 Pro Clear Case',
  ]);
  for (const p of await s.catalog.productSummaries(orgIds[0])) {
    if (!p.printable || !used.has(p.name)) continue;
    const view = await s.catalog.visibleProduct(orgIds[0], p.reference);
    products.set(p.name, { reference: p.reference, group: view.productgroupReference });
  }
  const ip15 = products.get('iPhone 15 Clear Case');
  const ip15black = products.get('iPhone 14 Clear Case');
  const s24 = products.get('Galaxy S24 Clear Case');
  const leather = products.get('Demo Walnut Leather Case iPhone 15');
  if (!ip15 || !s24) return { scenes: {}, perspectives: {}, compositions: {} };

  const groups = (...ps: Array<{ group: string } | undefined>) => [
    ...new Set(ps.filter((p) => p !== undefined).map((p) => p!.group)),
  ];
  const compositions: CompositionImport[] = [];
  const compose = async (
    key: string,
    sceneKey: string,
    product: { reference: string } | undefined,
    perspectiveKey: string,
    tokenCost: number,
    available = true,
  ) => {
    if (!product) return;
    const l = LAYOUT[perspectiveKey];
    const t = await drawTemplate(l.size, l.area, l.style);
    compositions.push({
      key,
      sceneKey,
      productReference: product.reference,
      perspectiveKey,
      tokenCost,
      available,
      template: { ...t, printArea: l.area },
    });
  };
  await compose('demo-studio-ip15', 'demo-studio', ip15, 'demo-studio-front', 2);
  await compose('demo-studio-s24', 'demo-studio', s24, 'demo-studio-front', 2);
  // The newest launched clear case, so a partner browsing newest first finds one with a mockup.
  await compose('demo-studio-ip18pro', 'demo-studio', products.get('iPhone 18 Pro Clear Case'), 'demo-studio-front', 2);
  await compose('demo-studio-ip15-closeup', 'demo-studio', ip15, 'demo-ip15-closeup', 3);
  await compose('demo-studio-ip15-black', 'demo-studio', ip15black, 'demo-studio-front', 2, false);
  await compose('demo-marble-ip15', 'demo-marble', ip15, 'demo-marble-top', 5);
  await compose('demo-marble-leather', 'demo-marble', leather, 'demo-marble-top', 5);

  const result = await s.rendering.importRendering({
    scenes: [
      {
        key: 'demo-studio',
        name: 'Studio desk',
        description: 'A case lying on a warm wooden desk in soft studio light.',
        allowsProductPerspectives: true,
        compatibleProductgroupReferences: groups(ip15, s24, products.get('iPhone 15 Tough Case')),
      },
      {
        key: 'demo-marble',
        name: 'Marble flat lay',
        description: 'Top-down flat lay on white marble, made for Demo Cases Co.',
        privateOrganizationReference: orgIds[0],
        compatibleProductgroupReferences: groups(ip15, leather),
      },
    ],
    perspectives: [
      {
        key: 'demo-studio-front',
        name: 'Studio front',
        output: { widthPx: 800, heightPx: 600, format: 'webp' },
        sceneKeys: ['demo-studio'],
      },
      {
        key: 'demo-marble-top',
        name: 'Marble top-down',
        output: { widthPx: 600, heightPx: 800, format: 'jpeg' },
        sceneKeys: ['demo-marble'],
      },
      {
        key: 'demo-ip15-closeup',
        name: 'iPhone 15 close-up',
        output: { widthPx: 512, heightPx: 512, format: 'png' },
        productReferences: [ip15.reference],
      },
    ],
    compositions,
  });
  const byKey = (list: Array<{ key: string; reference: string }>) =>
    Object.fromEntries(list.map((x) => [x.key, x.reference]));
  return {
    scenes: byKey(result.scenes),
    perspectives: byKey(result.perspectives),
    compositions: byKey(result.compositions),
  };
}
