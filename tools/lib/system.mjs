// The system components the suite uses (Chromium, PostgreSQL's server binaries, Go with two Go
// libraries), found where each platform puts them, and whether a suite that needs one runs. Under
// CI=true every one is required: a suite always runs, and fails if its component is missing (the
// check-system step has already failed the run). Elsewhere a missing component skips only the
// suites that need it; check-system says once what is skipped and how to get it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM_PATH } from './chromium.mjs';
import { postgresBinDir } from './postgres.mjs';

export const REQUIRED = process.env.CI === 'true';

const DEBIAN_GO = '/usr/share/gocode/src';
/** The modules the Go readers (packages/server/test/interop) require, at the versions their go.mod files name. */
export const GO_MODULES = [
  ['golang.org/x/mod', 'v0.7.0'],
  ['github.com/fxamacker/cbor/v2', 'v2.4.0'],
  ['github.com/x448/float16', 'v0.8.4'],
];
// Debian's packages keep a module without its major-version suffix.
const debianPath = (m) => join(DEBIAN_GO, m.replace(/\/v\d+$/, ''));

/** The Go module cache, or null without Go. */
function goModCache() {
  const r = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/**
 * Where the Go readers' libraries come from: Debian's packages (/usr/share/gocode), the Go module
 * cache (after `go mod download` of GO_MODULES, done once), or null (no Go, or neither).
 */
export function goLibraries() {
  if (spawnSync('go', ['version']).status !== 0) return null;
  if (GO_MODULES.every(([m]) => existsSync(debianPath(m)))) return 'debian';
  const cache = goModCache();
  // The cache spells upper-case letters as !x; these paths have none.
  if (cache && GO_MODULES.every(([m, v]) => existsSync(join(cache, `${m}@${v}`)))) return 'module-cache';
  return null;
}

const detect = {
  chromium: () => existsSync(CHROMIUM_PATH),
  postgres: () => postgresBinDir() !== null,
  go: () => goLibraries() !== null,
};

const seen = new Map();
/** Whether the component is here (detected once a process). */
export function present(what) {
  if (!seen.has(what)) seen.set(what, detect[what]());
  return seen.get(what);
}

/** Whether suites that need `what` run: always under CI=true, else when it is here. */
export function runs(what) {
  return REQUIRED || present(what);
}
