import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SeedDeps } from './deps.ts';
import type { SeedResult } from './demo.ts';

/** The demo keys and sign-ins of the last seeding, kept for the start banner (0600). */
export const demoKeysFile = (dataDir: string) => join(dataDir, 'demo-keys.json');

export function readDemoKeys(dataDir: string): SeedResult | null {
  const file = demoKeysFile(dataDir);
  if (!existsSync(file)) return null;
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as SeedResult;
    return Array.isArray(data.organizations) ? data : null;
  } catch {
    return null;
  }
}

/** Whether every demo organization already exists (found by its first store's code). */
async function demoDataPresent(s: Pick<SeedDeps, 'organization'>): Promise<boolean> {
  for (const code of ['DEMO1', 'OTHER1']) if (!(await s.organization.storeByCode(code))) return false;
  return true;
}

export interface DemoSeeding {
  /** True when keys were issued now (first seeding, or `rotateKeys`). */
  keysIssued: boolean;
  /** The seeding result with the keys, when they were issued now; else what the keys file holds. */
  result: SeedResult | null;
  file: string;
}

/**
 * Demo data is loaded once and its keys issued once: later starts and `podctl seed` keep them, so a
 * key saved by a user keeps working across restarts. `rotateKeys` (`podctl seed --rotate-keys`)
 * revokes the demo keys and issues new ones. Keys are shown again only through the keys file, since
 * the database keeps hashes only.
 */
export async function seedDemoOnce(
  s: SeedDeps,
  dataDir: string,
  opts: { rotateKeys?: boolean } = {},
): Promise<DemoSeeding> {
  const file = demoKeysFile(dataDir);
  if (!opts.rotateKeys && (await demoDataPresent(s))) return { keysIssued: false, result: readDemoKeys(dataDir), file };
  // The seeds (catalog, renders, claims, dashboard, Shopify) load only when a start has to seed.
  const { seedDemoUnlessProduction } = await import('./demo.ts');
  const result = await seedDemoUnlessProduction(s);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`, { mode: 0o600 });
  return { keysIssued: true, result, file };
}
