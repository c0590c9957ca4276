// `npm start` builds only when a source is newer than the build it would make (a second start on an
// unchanged tree goes straight to serving). Sources: both packages' src, the page, and the build
// configuration; the build: each package's dist entry.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
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

/** Why the build is stale (a sentence), or null when every output is newer than every input. */
export function staleBecause(dir = root) {
  const pkgs = [
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
  let built = Infinity;
  for (const p of pkgs) {
    const out = join(dir, p.output);
    if (!existsSync(out)) return `${p.output} is missing`;
    built = Math.min(built, statSync(out).mtimeMs);
  }
  const changed = Math.max(...pkgs.flatMap((p) => p.inputs.map((i) => newest(join(dir, i)))));
  return changed > built ? 'a source changed since the last build' : null;
}

export function buildIfStale(dir = root) {
  const why = staleBecause(dir);
  if (!why) return;
  console.error(`svc: building (${why})`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm run build failed (${r.status ?? r.signal})`);
}
