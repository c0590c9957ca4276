// Starts that cannot succeed say why in one line and what to do (#44 rows 4 and 5). A port another
// program holds: the port and how to choose another, exit 1, once for a cluster of processes (each
// finds the port taken; the primary speaks for them) as for one. A Node without node:sqlite (older
// than 24): a refusal to start naming the fix (exit 2), where the server used to listen with its
// ledger 503 "temporarily unavailable".
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_NODE, sqliteMissing } from '../../src/ledger/sqlite/driver.js';

const cli = join(import.meta.dirname, '../../dist/cli.js');
let holder: Server;
let port: number;
const dirs: string[] = [];
beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  port = (holder.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((r) => holder.close(r));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function serve(env: Record<string, string>, node = process.execPath): Promise<{ code: number | null; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-port-'));
  dirs.push(dir);
  return new Promise((resolve) => {
    const c = spawn(node, [cli, 'serve'], {
      env: { ...process.env, PORT: String(port), SVC_DATA_DIR: dir, SVC_LOG: '0', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    c.stderr.on('data', (d) => (stderr += d));
    c.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('a port already taken', () => {
  it.each([
    ['a cluster of two processes', { SVC_PROCESSES: '2' }],
    ['a single process', { SVC_PROCESSES: '1' }],
  ])(
    '%s: one line naming the port and PORT, exit 1',
    async (_what, env) => {
      const r = await serve(env);
      expect(r.code).toBe(1);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('svc: '));
      expect(lines).toEqual([
        `svc: port ${port} on 127.0.0.1 is already in use (another server, or svc serve already running): stop it, or start on another port with PORT=<n> (or --port <n>)`,
      ]);
      expect(r.stderr).not.toContain('EADDRINUSE');
    },
    60_000,
  );
});

describe('a Node without node:sqlite', () => {
  // The system Node, where it is older than 24 (this machine's is 20; the suite itself runs on 24).
  const system = spawnSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  const older = Number(system.split('.')[0]) < SQLITE_NODE;

  it.skipIf(!older)(
    'svc serve refuses to start on it, naming the fix; nothing listens',
    async () => {
      const r = await serve({ PORT: '0' }, 'node');
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`the embedded SQLite store needs Node >= 24 (its built-in node:sqlite); this is Node ${system}`);
      expect(r.stderr).not.toContain('temporarily');
    },
    60_000,
  );

  it('sqliteMissing: null on this Node, the reason and both fixes on an older one', () => {
    expect(sqliteMissing()).toBeNull();
    const why = sqliteMissing('22.12.0');
    expect(why).toContain('this is Node 22.12.0');
    expect(why).toContain('SVC_DATABASE_URL');
  });
});
