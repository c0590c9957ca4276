// Starts that cannot succeed say why in one line and what to do (#44 rows 4 and 5). A port another
// program holds: the port and how to choose another, exit 1, once for a cluster of processes (each
// finds the port taken; the primary speaks for them) as for one. A SQLite driver that cannot be
// loaded: a refusal to start naming the fix (exit 2), where the server used to listen with its
// ledger 503 "temporarily unavailable".
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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

function serve(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-port-'));
  dirs.push(dir);
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [cli, 'serve'], {
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

describe('a SQLite driver that cannot be loaded', () => {
  it('svc serve refuses to start, naming the fix; nothing listens', async () => {
    const r = await serve({ SVC_SQLITE_MODULE: join(tmpdir(), 'no-such-driver'), PORT: '0' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the SQLite driver SVC_SQLITE_MODULE names');
    expect(r.stderr).not.toContain('temporarily');
  }, 60_000);

  it('sqliteDriverMissing: null where the driver resolves, the reason and the fix where it does not', async () => {
    const { sqliteDriverMissing } = await import('../../src/ledger/sqlite/db.js');
    expect(sqliteDriverMissing()).toBeNull();
    process.env.SVC_SQLITE_MODULE = join(tmpdir(), 'no-such-driver');
    try {
      expect(sqliteDriverMissing()).toMatch(/cannot be found/);
    } finally {
      delete process.env.SVC_SQLITE_MODULE;
    }
  });
});
