// Independent readers written in Go on libraries this project did not write (interop/go-tlog: the
// tiled log, on Go's sumdb/tlog and sumdb/note; interop/go-scitt: SCITT statements and receipts,
// on fxamacker/cbor, crypto/ed25519 and x/mod), built once per source version into the temp folder.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { goLibraries } from '@svc/tools/system';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A Go program of interop/<name>, built once per source version into the temp folder, offline:
 * its libraries come from Debian's packages (its go.mod's replace lines), else from the Go module
 * cache at the versions its go.mod requires.
 */
export function goProgram(name: string): string {
  const src = fileURLToPath(new URL(`../interop/${name}/`, import.meta.url));
  const hash = createHash('sha256')
    .update(readFileSync(join(src, 'main.go')))
    .update(readFileSync(join(src, 'go.mod')))
    .digest('hex')
    .slice(0, 16);
  const dir = join(tmpdir(), `svc-${name}`);
  const bin = join(dir, `check-${hash}`);
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  // Without Debian's packages, the same versions from the Go module cache: the go.mod without its
  // replace lines, in a copy, still offline (GOPROXY=off reads only the cache).
  let cwd = src;
  if (goLibraries() === 'module-cache') {
    cwd = join(dir, `src-${hash}`);
    mkdirSync(cwd, { recursive: true });
    copyFileSync(join(src, 'main.go'), join(cwd, 'main.go'));
    writeFileSync(join(cwd, 'go.mod'), readFileSync(join(src, 'go.mod'), 'utf8').replace(/^replace .*$/gm, ''));
  }
  execFileSync('go', ['build', '-o', bin, '.'], {
    cwd,
    env: {
      ...process.env,
      GOFLAGS: '-mod=mod',
      GOPROXY: 'off',
      GOSUMDB: 'off',
      GOCACHE: join(dir, 'cache'),
      HOME: process.env.HOME ?? dir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return bin;
}

/** The tiled-log reader on Go's sumdb/tlog and sumdb/note (x/mod from golang-golang-x-mod-dev). */
export const goTlogChecker = (): string => goProgram('go-tlog');

export interface GoReport {
  origin: string;
  size: number;
  entries: number;
  tiles: number;
  older: number;
}

/** Run the checker (asynchronously: the server under test may live in this process); rejects with its stderr on any finding. */
export async function goCheck(prefix: string, ed25519Vkey: string, older?: number): Promise<GoReport> {
  const { stdout } = await promisify(execFile)(goTlogChecker(), [prefix, ed25519Vkey, ...(older !== undefined ? [String(older)] : [])], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return JSON.parse(stdout) as GoReport;
}

/** Check the cosignature/v1 lines of `name` in a note with Go's crypto/ed25519. */
export async function goCosig(publicKey: Uint8Array, noteFile: string, name: string): Promise<{ checked: number }> {
  const { stdout } = await promisify(execFile)(goTlogChecker(), ['cosig', Buffer.from(publicKey).toString('base64'), noteFile, name], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(stdout) as { checked: number };
}
