// The better-sqlite3 this workspace compiled, offered to the installs the tests make from scratch
// (the first hour's fresh clone, the published tarballs) as prebuild-install's local prebuild. A
// stranger's `npm install` downloads such a prebuilt binary from the package's releases; this
// machine and CI cannot reach them, so each of those installs compiled SQLite again (65 s of a core
// here). The workspace's own install still compiles it, from source, in every CI run. Where the
// workspace has no compiled module, nothing is offered and the install compiles as before.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './root.mjs';

const PKG = join(root, 'node_modules', 'better-sqlite3');
const BINARY = 'build/Release/better_sqlite3.node';

/**
 * Environment for an `npm install` run by this Node on this machine: where prebuild-install finds
 * the workspace's better-sqlite3 under the file name it looks for
 * (`{name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz`). Empty when there is none.
 */
export function localSqlitePrebuild() {
  if (process.platform !== 'linux' || !existsSync(join(PKG, BINARY))) return {};
  // A musl system names its prebuilds with the libc; this one is offered on glibc only.
  if (process.report?.getReport?.().header?.glibcVersionRuntime === undefined) return {};
  const { version } = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'svc-prebuilds-'));
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-linux-${process.arch}.tar.gz`;
  try {
    execFileSync('tar', ['czf', join(dir, name), '-C', PKG, BINARY]);
  } catch {
    return {};
  }
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}
