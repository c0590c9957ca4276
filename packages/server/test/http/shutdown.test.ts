// Graceful shutdown: a deadline that a stalled upload cannot outlast, idle keep-alive sockets closed
// at once, start and end logged, exit 0.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, startServer } from '../../src/internal.js';
import { freePort } from '../support/harness.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Resolves with what `p` resolves to, or 'still running' after `ms` (a bound, not a speed target). */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<'still running'>((r) => setTimeout(() => r('still running'), ms))]);

async function started(overrides: Record<string, unknown>) {
  const lines: Record<string, unknown>[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'svc-shutdown-'));
  const cfg = loadConfig({ SVC_DATA_DIR: dir, PORT: '0', SVC_WORKERS: '1' }, overrides as never);
  const running = await startServer(cfg, { log: (event, f = {}) => lines.push({ event, ...f }) });
  return { running, lines, port: Number(new URL(running.url).port) };
}

function openSocket(port: number, data: string): Promise<{ closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(data);
      resolve({ closed: new Promise((r) => s.on('close', () => r())) });
    });
    // Before it connects, an error is the answer (a refused port must fail the test, not hang it).
    s.on('error', (e) => reject(e));
    s.on('data', () => {});
  });
}

describe('graceful shutdown', () => {
  it('a half-sent upload is cut at the deadline; shutdown logs its start and end', async () => {
    const { running, lines, port } = await started({ shutdownMs: 300 });
    const stalled = await openSocket(
      port,
      'POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"half":',
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(await within(running.close(), 5000)).toBeUndefined();
    expect(await within(stalled.closed, 1000)).toBeUndefined();
    const events = lines.map((l) => l.event);
    expect(events).toContain('shutdown_started');
    expect(lines.find((l) => l.event === 'stopped')).toMatchObject({ forced: true });
  });

  it('idle keep-alive connections close at once, without waiting for the deadline', async () => {
    const { running, lines, port } = await started({ shutdownMs: 60_000 });
    const idle = await openSocket(port, 'GET /api/cbom HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    expect(await within(running.close(), 3000)).toBeUndefined();
    expect(await within(idle.closed, 1000)).toBeUndefined();
    expect(lines.find((l) => l.event === 'stopped')).toMatchObject({ forced: false });
  });

  it('svc serve exits 0 on SIGTERM within the configured deadline despite a stalled upload', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-serve-'));
    const port = await freePort();
    const child = spawn(process.execPath, [CLI, 'serve'], {
      env: { ...process.env, SVC_DATA_DIR: dir, PORT: String(port), SVC_WORKERS: '1', SVC_SHUTDOWN_SECONDS: '0.5' },
    });
    let out = '';
    let stoppedAt = 0;
    child.stdout.on('data', (c) => {
      out += c;
      if (!stoppedAt && out.includes('"event":"stopped"')) stoppedAt = performance.now();
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // A start may be slow while other tests install and build on the same cores.
    for (let i = 0; i < 600 && !out.includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('"listening"');
    await openSocket(port, 'POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{');
    await openSocket(port, 'GET /api/cbom HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    expect(await within(exited, 10_000)).toBe(0);
    // "stopped" is the last thing said, and true when said: the exit follows at once (#31).
    expect(performance.now() - stoppedAt).toBeLessThan(1_000);
    const events = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).event);
    expect(events).toContain('shutdown_started');
    expect(events[events.length - 1]).toBe('stopped');
  }, 90_000);
});
