/**
 * `node --import ./scripts/ts-loader.mjs`: runs TypeScript files through scripts/ts-hooks.mjs.
 * The test passes use it instead of tsx: tsx's hooks resolve and load every module, these only
 * transform `.ts` files, from a cache on disk, which saves ~1.4 CPU s of each test file's start.
 */
import { register } from 'node:module';

const hooks = new URL('./ts-hooks.mjs', import.meta.url).href;
register(hooks);
// Worker threads do not inherit module hooks: src/platform/threads.ts registers these in each thread.
Object.defineProperty(globalThis, Symbol.for('pod.tsHooks'), { value: hooks });
// Stack traces point into the TypeScript, through the inline source maps.
process.setSourceMapsEnabled(true);
