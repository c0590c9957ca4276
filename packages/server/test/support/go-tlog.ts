// Independent readers written in Go on libraries this project did not write (interop/go-tlog: the
// tiled log, on Go's sumdb/tlog and sumdb/note; interop/go-scitt: SCITT statements and receipts,
// on fxamacker/cbor, crypto/ed25519 and x/mod), built once per source version into the temp folder.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A Go program of interop/<name>, built once per source version into the temp folder, offline:
 * its libraries come from Debian's packages (see its go.mod's replace lines).
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
  execFileSync('go', ['build', '-o', bin, '.'], {
    cwd: src,
    env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: join(dir, 'cache'), HOME: process.env.HOME ?? dir },
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
