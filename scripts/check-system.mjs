#!/usr/bin/env node
// First step of `npm test`: the system components the suite needs, checked before minutes of other
// tests run. Missing ones stop the run at once with the exact command that installs them.
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH } from './chromium.mjs';

const missing = [];
const chromium = CHROMIUM_PATH;
if (!existsSync(chromium))
  missing.push({
    what: `Chromium at ${chromium} (core tests in a browser, the verifier page)`,
    fix: 'apt-get update && apt-get install -y chromium',
  });
if (missing.length > 0) {
  console.error('npm test needs system components that are missing:');
  for (const m of missing) console.error(`  - ${m.what}\n    install: ${m.fix}`);
  console.error('(.ci/run installs them; or set CHROMIUM_PATH to another Chromium build.)');
  process.exit(1);
}
