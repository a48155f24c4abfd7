import type { SeedDeps } from './deps.ts';
import type { CompositionImport, PerspectiveImport, SceneImport } from '../modules/rendering/import.ts';
import { stageImport } from '../modules/rendering/stage-compositions.ts';

export interface RenderingSeed {
  scenes: Record<string, string>;
  perspectives: Record<string, string>;
  compositions: Record<string, string>;
}

interface Imports {
  scenes: SceneImport[];
  perspectives: PerspectiveImport[];
  compositions: CompositionImport[];
}
type DemoProducts = Awaited<ReturnType<typeof demoPrintProducts>>;

/** Every print product any demo organization sees (each one's private products included). */
async function demoPrintProducts(s: Pick<SeedDeps, 'catalog'>, orgIds: string[]) {
  const names = new Map<string, string>();
  const groupOf = new Map<string, string>();
  for (const org of orgIds)
    for (const p of await s.catalog.productSummaries(org)) {
      if (!p.printable || groupOf.has(p.reference)) continue;
      names.set(p.reference, p.name);
      groupOf.set(p.reference, (await s.catalog.visibleProduct(org, p.reference)).productgroupReference);
    }
  const shapes = await s.catalog.productShapes([...names.keys()]);
  const printable = [...shapes].filter(([, sh]) => sh.device && sh.caseType);
  const byName = new Map([...names].map(([ref, name]) => [name, ref]));
  const product = (name: string) => byName.get(name);
  const groupsOf = (refs: Array<string | undefined>) => [
    ...new Set(refs.filter((r): r is string => r !== undefined && groupOf.has(r)).map((r) => groupOf.get(r)!)),
  ];
  const caseGroups = [...new Set(groupOf.values())];
  return { groupOf, printable, product, groupsOf, caseGroups };
}

/** Every print product: its straight-on shot. */
function addProductShots({ scenes, perspectives, compositions }: Imports, d: DemoProducts): void {
  const { printable, groupOf, caseGroups } = d;
  scenes.push({
    key: 'catalog-front',
    name: 'Product shot',
    description: 'The case seen straight on against a soft grey backdrop, drawn from its own geometry and material.',
    compatibleProductgroupReferences: caseGroups,
  });
  perspectives.push({
    key: 'catalog-front-square',
    name: 'Straight on, square',
    output: { widthPx: 1000, heightPx: 1000, format: 'webp' },
    sceneKeys: ['catalog-front'],
  });
  for (const [ref] of printable) {
    if (!groupOf.has(ref)) continue;
    compositions.push({
      key: `front-${ref}`,
      sceneKey: 'catalog-front',
      productReference: ref,
      perspectiveKey: 'catalog-front-square',
      tokenCost: 1,
      template: { generate: { kind: 'front' } },
    });
  }

  // The 3D stages: every model with geometry, in every case type, rendered at run time (their
  // compositions are made when first looked up).
  const stages = stageImport(caseGroups);
  scenes.push(...stages.scenes);
  perspectives.push(...stages.perspectives);
}

/** The demo fixtures (keys the tests and the docs use); their templates are the products' own. */
function addDemoFixtures({ scenes, perspectives, compositions }: Imports, d: DemoProducts, orgIds: string[]): void {
  const { product, groupOf, groupsOf } = d;
  const ip15 = product('iPhone 15 Clear Case');
  const s24 = product('Galaxy S24 Clear Case');
  const leather = product('Demo Walnut Leather Case iPhone 15');
  if (ip15 && s24) {
    const front = { generate: { kind: 'front' as const } };
    const compose = (
      key: string,
      sceneKey: string,
      ref: string | undefined,
      perspectiveKey: string,
      tokenCost: number,
      available = true,
    ) => {
      if (ref && groupOf.has(ref))
        compositions.push({
          key,
          sceneKey,
          productReference: ref,
          perspectiveKey,
          tokenCost,
          available,
          template: front,
        });
    };
    scenes.push(
      {
        key: 'demo-studio',
        name: 'Studio desk',
        description: 'The case straight on, as it lies on a studio desk in soft light.',
        allowsProductPerspectives: true,
        compatibleProductgroupReferences: groupsOf([ip15, s24, product('iPhone 15 Tough Case')]),
      },
      {
        key: 'demo-marble',
        name: 'Marble flat lay',
        description: 'Made for Demo Cases Co.',
        privateOrganizationReference: orgIds[0],
        compatibleProductgroupReferences: groupsOf([ip15, leather]),
      },
    );
    perspectives.push(
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
        productReferences: [ip15],
      },
    );
    compose('demo-studio-ip15', 'demo-studio', ip15, 'demo-studio-front', 2);
    compose('demo-studio-s24', 'demo-studio', s24, 'demo-studio-front', 2);
    // The newest launched clear case, so a partner browsing newest first finds one with a mockup.
    compose('demo-studio-ip18pro', 'demo-studio', product('iPhone 18 Pro Clear Case'), 'demo-studio-front', 2);
    compose('demo-studio-ip15-closeup', 'demo-studio', ip15, 'demo-ip15-closeup', 3);
    compose('demo-studio-ip15-black', 'demo-studio', product('iPhone 14 Clear Case'), 'demo-studio-front', 2, false);
    compose('demo-marble-ip15', 'demo-marble', ip15, 'demo-marble-top', 5);
    compose('demo-marble-leather', 'demo-marble', leather, 'demo-marble-top', 5);
  }
}

/**
 * Scenes, perspectives and compositions for the demo catalog, through the operator import
 * (idempotent by key):
 * - `catalog-front`: every print product's straight-on shot, drawn from its own geometry and case
 *   type on first use;
 * - the 3D stages (studio sweep, oak desk, marble top), two angled views each at 1000 and 2000 px,
 *   for every print product: rendered at run time from the product's geometry;
 * - the older demo fixtures the tests and docs use: a public studio scene that allows product
 *   perspectives, a marble scene private to the first organization, perspectives in three formats
 *   and sizes, token costs 2, 3 and 5, and one composition that is no longer available.
 */
export async function seedRendering(
  s: Pick<SeedDeps, 'catalog' | 'rendering'>,
  orgIds: string[],
): Promise<RenderingSeed> {
  const demo = await demoPrintProducts(s, orgIds);
  const lists: Imports = { scenes: [], perspectives: [], compositions: [] };
  addProductShots(lists, demo);
  addDemoFixtures(lists, demo, orgIds);

  const { scenes, perspectives, compositions } = lists;
  const result = await s.rendering.importRendering({ scenes, perspectives, compositions });
  const byKey = (list: Array<{ key: string; reference: string }>) =>
    Object.fromEntries(list.map((x) => [x.key, x.reference]));
  return {
    scenes: byKey(result.scenes),
    perspectives: byKey(result.perspectives),
    compositions: byKey(result.compositions),
  };
}
