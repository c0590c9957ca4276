#!/usr/bin/env node
// `npm test`: the whole suite, one command (#42). The system check, lint and the build come first;
// then the six type checks and the API reference, each a single-threaded program, one per core
// (two on the CI machine, where they took 54 s one after another, one core idle); then the main
// vitest run (core, examples, server) beside the runtime suite (tools/scripts/
// test-runtimes.mjs). The main run is on Node 24, which @svc/server needs (node:sqlite): fetched
// from the npm registry when the system Node is older, as npm start does. Output of a step run beside another is printed whole when it ends, so lines
// never interleave (the main run alone prints as it goes); each step's time is printed, and the
// first failure stops the run with its exit.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureNode24, node24 } from '../lib/node24.mjs';
import { root } from '../lib/root.mjs';

const node = process.execPath;
const bin = (pkg, file) => join(root, 'node_modules', pkg, file);
// The type checks run TypeScript 7 (the native compiler, `typescript-native`, an npm alias of
// typescript@7): the six took about 75 s of CPU under TypeScript 5.9 and take about 24 s under 7,
// with the same errors. TypeScript 5.9 stays for what needs its JavaScript API (tsup's declaration
// build, TypeDoc) and for the runtime matrix, which checks the published declarations with the
// compiler most consumers have.
const tsc = (project, ...more) => ({
  name: `tsc -p ${project}`,
  cmd: node,
  args: [bin('typescript-native', 'bin/tsc'), '-p', project, ...more],
});

/** The type checks (`npm run typecheck` runs these alone): each package's sources with only its own
 *  runtime's types, then the tests, the generated client's test and the page. */
export const TYPECHECKS = [
  tsc('packages/core', '--noEmit'),
  tsc('packages/core/tsconfig.test.json'),
  tsc('packages/server', '--noEmit'),
  tsc('packages/server/tsconfig.test.json'),
  tsc('packages/server/tsconfig.client-test.json'),
  tsc('packages/server/page'),
];

/** The steps, in order; an array is a group whose steps run together, one per core (at least two).
 *  A step marked `live` prints as it runs; the others of its group print whole when they end. */
export const STEPS = [
  { name: 'system components', cmd: node, args: ['tools/scripts/check-system.mjs'] },
  { name: 'lint', cmd: node, args: [bin('@biomejs/biome', 'bin/biome'), 'check', '.'] },
  { name: 'build (when a source is newer)', cmd: node, args: ['tools/scripts/build-if-stale.mjs'] },
  [...TYPECHECKS, { name: 'API reference', cmd: node, args: ['tools/scripts/docs.mjs'] }],
  // The runtimes step leaves a core idle for a quarter of its two minutes (its runtimes start,
  // install and wait on a browser one after another): run beside the main run, it fills the gaps
  // there. The main run prints as it goes; the runtimes' output comes whole when they end.
  [
    {
      name: 'vitest on Node 24: core, examples, server',
      cmd: node24,
      args: [bin('vitest', 'vitest.mjs'), 'run', '--project', 'core', '--project', 'examples', '--project', 'server'],
      live: true,
    },
    { name: 'the runtimes: Node 20, Chromium, the packed tarball', cmd: node, args: ['tools/scripts/test-runtimes.mjs'] },
  ],
];

// Every temporary folder the steps make (data folders, clones, databases, packed tarballs: about
// eighty a run, several left behind by servers killed on purpose) lands in one folder, removed when
// the run ends however it ends: a run leaves nothing in /tmp. Readable by all, as PostgreSQL's
// server runs as its own user when the tests run as root.
let runTmp = null;
function makeRunTmp() {
  runTmp = mkdtempSync(join(tmpdir(), 'svc-npm-test-'));
  chmodSync(runTmp, 0o755);
  const remove = () => rmSync(runTmp, { recursive: true, force: true });
  process.on('exit', remove);
  for (const [sig, n] of [
    ['SIGINT', 2],
    ['SIGTERM', 15],
  ])
    process.once(sig, () => {
      remove();
      process.exit(128 + n);
    });
}

const since = (t) => `${((performance.now() - t) / 1000).toFixed(1)} s`;

function run(step, quiet) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(step.cmd, step.args, {
      cwd: root,
      stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: { ...process.env, ...(runTmp ? { TMPDIR: runTmp } : {}) },
    });
    let out = '';
    if (quiet) {
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
    }
    child.on('close', (code, signal) => {
      if (quiet && (out.trim() || code !== 0)) process.stdout.write(`\n== ${step.name}\n${out}`);
      console.log(`== ${step.name}: ${code === 0 ? 'ok' : `FAILED (${signal ?? `exit ${code}`})`} in ${since(started)}`);
      resolve(code ?? 1);
    });
  });
}

/** Runs `steps` with at most `width` at a time; resolves to the first failing exit code, or 0. */
export async function together(steps, width) {
  const queue = [...steps];
  let failed = 0;
  const lane = async () => {
    for (let s = queue.shift(); s && !failed; s = queue.shift()) {
      // Read `failed` after the step ends: another lane may have failed meanwhile.
      const code = await run(s, !s.live);
      if (code !== 0 && !failed) failed = code;
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, steps.length) }, lane));
  return failed;
}

async function main() {
  const started = performance.now();
  makeRunTmp();
  if (process.argv[2] !== 'typecheck' && !ensureNode24()) {
    console.error('npm test: Node 24, which the server and its tests run on, could not be installed from the npm registry');
    process.exit(1);
  }
  const steps = process.argv[2] === 'typecheck' ? [TYPECHECKS] : STEPS;
  for (const step of steps) {
    const code = Array.isArray(step) ? await together(step, Math.max(2, availableParallelism())) : await run(step, false);
    if (code !== 0) {
      console.error(`${process.argv[2] ?? 'npm test'}: failed after ${since(started)}`);
      process.exit(code);
    }
  }
  console.log(`${process.argv[2] ?? 'npm test'}: every step passed in ${since(started)}`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) await main();
