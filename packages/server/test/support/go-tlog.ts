// The independent tiled-log reader (interop/go-tlog, on Go's sumdb/tlog and sumdb/note), built once
// per source version into the temp folder and run against a URL prefix.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../interop/go-tlog/', import.meta.url));

export function goTlogChecker(): string {
  const hash = createHash('sha256')
    .update(readFileSync(join(SRC, 'main.go')))
    .update(readFileSync(join(SRC, 'go.mod')))
    .digest('hex')
    .slice(0, 16);
  const dir = join(tmpdir(), 'svc-go-tlog');
  const bin = join(dir, `check-${hash}`);
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  // Offline: x/mod comes from Debian's golang-golang-x-mod-dev (see go.mod's replace line).
  execFileSync('go', ['build', '-o', bin, '.'], {
    cwd: SRC,
    env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: join(dir, 'cache'), HOME: process.env.HOME ?? dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return bin;
}

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
