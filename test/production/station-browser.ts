import { after, before } from 'node:test';
import type { Page } from 'playwright-core';
import { OPERATOR_USER } from '../dashboard/helpers.ts';
import { type TestApp, servedApp } from '../support/app.ts';
import { type OpenBrowser, openBrowser, shoot, signIn } from '../support/browser.ts';

/** Counts the station's tones: each oscillator started, with its frequency. */
const COUNT_TONES = `(() => { window.__tones = []; const A = window.AudioContext; if (!A) return;
  const make = A.prototype.createOscillator;
  A.prototype.createOscillator = function () { const o = make.call(this); const start = o.start.bind(o);
    o.start = (at) => { window.__tones.push(o.frequency.value); try { start(at); } catch {} }; return o; }; })();`;

export interface StationSuite {
  t: TestApp;
  base: string;
  browser: OpenBrowser;
  /** Chromium's tab, signed in to the console as the operator. */
  page: Page;
  /** Types a code and Enter, as a wedge scanner does. */
  scan(code: string): Promise<void>;
  /** The frequencies of the tones sounded so far. */
  tones(): Promise<number[]>;
  /** Screenshots at phone and desktop width; no serious axe-core finding, nothing wider than the phone. */
  shoot(name: string): Promise<void>;
}

/**
 * The enclosing suite's app and a Chromium signed in to its console, for the floor stations: tones
 * play without a click and are counted. Started before the suite's first test, closed after its last
 * (hooks on the suite that calls this); the tests read its fields.
 */
export function stationSuite(): StationSuite {
  const s = {
    async scan(code: string) {
      await s.page.keyboard.type(code);
      await s.page.keyboard.press('Enter');
    },
    tones: () => s.page.evaluate(() => (window as any).__tones as number[]),
    shoot: (name: string) => shoot(s.page, name),
  } as StationSuite;
  before(async () => {
    Object.assign(s, await servedApp());
    s.browser = await openBrowser({ args: ['--autoplay-policy=no-user-gesture-required'], initScript: COUNT_TONES });
    s.page = s.browser.page;
    await signIn(s.page, s.base, OPERATOR_USER, 'console');
  });
  after(async () => {
    await s.browser?.close();
    await s.t?.close();
  });
  return s;
}
