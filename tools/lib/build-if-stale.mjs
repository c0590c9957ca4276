// `npm start` builds only when a source is newer than the build it would make (a second start on an
// unchanged tree goes straight to serving). Sources: both packages' src, the page, and the build
// configuration; the build: each package's dist entry.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './root.mjs';

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = 0;
  for (const e of readdirSync(path)) m = Math.max(m, newest(join(path, e)));
  return m;
}

/** Each package's build inputs (relative to the repository root) and the output whose age stands for its build. */
export const BUILDS = [
  { inputs: ['packages/core/src', 'packages/core/tsup.config.ts', 'packages/core/package.json'], output: 'packages/core/dist/index.js' },
  {
    inputs: [
      'packages/server/src',
      'packages/server/page',
      'packages/server/tsup.config.ts',
      'packages/server/package.json',
      'packages/server/scripts/build-page.mjs',
    ],
    output: 'packages/server/dist/cli.js',
  },
];

/** Why the build is stale (a sentence), or null when every output is newer than every input. */
export function staleBecause(dir = root) {
  const pkgs = BUILDS;
  let built = Infinity;
  for (const p of pkgs) {
    const out = join(dir, p.output);
    if (!existsSync(out)) return `${p.output} is missing`;
    built = Math.min(built, statSync(out).mtimeMs);
  }
  const changed = Math.max(...pkgs.flatMap((p) => p.inputs.map((i) => newest(join(dir, i)))));
  return changed > built ? 'a source changed since the last build' : null;
}

/** Where the last build made here records what it printed, for the build it made. */
const RECORD = 'node_modules/.cache/svc-build/stderr.json';
const outputTimes = (dir) => BUILDS.map((b) => (existsSync(join(dir, b.output)) ? statSync(join(dir, b.output)).mtimeMs : 0));

export function buildIfStale(dir = root) {
  const why = staleBecause(dir);
  if (!why) return;
  console.error(`svc: building (${why})`);
  // What the build writes to stderr is what an install shows (its stdout is tsup's progress):
  // passed on, and kept with the build it belongs to (buildOutputOf).
  const r = spawnSync('npm', ['run', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  process.stderr.write(r.stderr ?? '');
  if (r.status !== 0) throw new Error(`npm run build failed (${r.status ?? r.signal})`);
  mkdirSync(join(dir, RECORD, '..'), { recursive: true });
  writeFileSync(join(dir, RECORD), JSON.stringify({ outputs: outputTimes(dir), stderr: r.stderr ?? '' }));
}

/** What the build now in `dir` wrote to stderr, when buildIfStale made it (else null: `npm run
 *  build` run by hand keeps no record). */
export function buildOutputOf(dir = root) {
  try {
    const rec = JSON.parse(readFileSync(join(dir, RECORD), 'utf8'));
    return JSON.stringify(rec.outputs) === JSON.stringify(outputTimes(dir)) ? String(rec.stderr) : null;
  } catch {
    return null;
  }
}
