import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

/** Where the browser tests find Chromium (`.ci/run` installs it there: apt-get install chromium). */
export const CHROMIUM = '/usr/bin/chromium';
/** The skip reason of a browser suite on a machine without Chromium, else false. */
export const skipWithoutChromium: string | false = existsSync(CHROMIUM)
  ? false
  : `Chromium not found at ${CHROMIUM} (apt-get install chromium); browser test skipped`;
if (skipWithoutChromium) console.log(`# ${skipWithoutChromium}`);

/** Screenshots of the browser tests, for a person to look at. */
export const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');
export const WIDTHS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface OpenBrowser {
  context: BrowserContext;
  /** The first tab, at desktop width unless `viewport` said otherwise. */
  page: Page;
  /** Closes Chromium and removes its profile. */
  close(): Promise<void>;
}

/** Headless Chromium on a profile of its own, with one tab open. */
export async function openBrowser(
  opts: {
    /** Switches beyond the quiet headless set (autoplay for the stations' tones). */
    args?: string[];
    viewport?: { width: number; height: number };
    extraHTTPHeaders?: Record<string, string>;
    /** Each wait and action's limit, in ms. */
    timeout?: number;
    navigationTimeout?: number;
    /** Runs in every page before its own scripts. */
    initScript?: string;
  } = {},
): Promise<OpenBrowser> {
  mkdirSync(SHOTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'pod-chromium-'));
  const { chromium } = await import('playwright-core');
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...ARGS, ...(opts.args ?? [])],
      viewport: opts.viewport ?? WIDTHS.desktop,
      extraHTTPHeaders: opts.extraHTTPHeaders,
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  if (opts.initScript) await context.addInitScript(opts.initScript);
  const page = context.pages()[0] ?? (await context.newPage());
  if (opts.timeout) page.setDefaultTimeout(opts.timeout);
  if (opts.navigationTimeout) page.setDefaultNavigationTimeout(opts.navigationTimeout);
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** How many px the page is wider than its viewport (0 or less: no sideways scrolling). */
export const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/**
 * Full-page screenshots of the current page at phone and desktop widths (SHOTS/<name>-<width>.png),
 * each checked with axe-core (injected through the debugging protocol, which the page's CSP does not
 * govern): no serious or critical violation, nor a `region` one (text outside every landmark, which
 * landmark navigation skips) when `region` is set; and nothing wider than the phone's screen. Leaves
 * the page at desktop width.
 */
export async function shoot(page: Page, name: string, opts: { region?: boolean } = {}) {
  for (const [label, size] of Object.entries(WIDTHS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SHOTS, `${name}-${label}.png`), fullPage: true });
    // Once per document (650 KB): resizing keeps the page, and axe-core in it, for the second width.
    if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async (region) => {
      const result = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
      return result.violations
        .filter((v: any) => v.impact === 'serious' || v.impact === 'critical' || (region && v.id === 'region'))
        .map(
          (v: any) =>
            `${v.id} (${v.impact}): ${v.nodes
              .map((n: any) => n.target.join(' '))
              .slice(0, 3)
              .join(', ')}`,
        );
    }, opts.region ?? false);
    assert.deepEqual(violations, [], `axe-core on ${name} at ${label} width`);
    if (label === 'phone') {
      const wider = await overflow(page);
      assert.ok(wider <= 1, `${name} is ${wider} px wider than a 390 px phone`);
    }
  }
  await page.setViewportSize(WIDTHS.desktop);
}

/** Signs in through the sign-in form of the partner dashboard or the operator console. */
export async function signIn(
  page: Page,
  base: string,
  user: { email: string; password: string },
  area: 'dashboard' | 'console',
) {
  await page.goto(`${base}/${area}/sign-in`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/${area}`);
}
