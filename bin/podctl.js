#!/usr/bin/env node
// The operator CLI, compiled (built first when dist/ is missing or stale).
import { runCompiled } from '../scripts/run.mjs';

await runCompiled('cli', process.argv.slice(2));
