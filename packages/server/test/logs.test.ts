// Logs: one JSON shape with levels (pino), SVC_LOG_LEVEL, and a request id on every line a request
// causes, however deep in the server it is written.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLogger, levelOf, loadConfig, startServer } from '../src/internal.js';
import { freePort } from './support/harness.js';

function capture(level: Parameters<typeof jsonLogger>[0]) {
  const lines: Array<Record<string, any>> = [];
  return { lines, log: jsonLogger(level, (l) => lines.push(JSON.parse(l))) };
}

describe('the logger', () => {
  it('writes one JSON object per line: level, ts, pid, event, fields', () => {
    const { lines, log } = capture('info');
    log('listening', { url: 'http://x' });
    log('internal_error', { error: 'boom' });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 'info', pid: process.pid, event: 'listening', url: 'http://x' });
    expect(new Date(lines[0]!.ts).toISOString()).toBe(lines[0]!.ts);
    expect(lines[1]).toMatchObject({ level: 'error', event: 'internal_error' });
    expect(levelOf('witness_refused')).toBe('warn');
    expect(levelOf('anything_else')).toBe('info');
  });

  it('writes nothing below its level; false and silent write nothing', () => {
    const warn = capture('warn');
    warn.log('request', { status: 200 });
    warn.log('witness_refused', { status: 409 });
    expect(warn.lines.map((l) => l.event)).toEqual(['witness_refused']);
    for (const off of [false, 'silent'] as const) {
      const c = capture(off);
      c.log('internal_error', {});
      expect(c.lines).toEqual([]);
    }
  });

  it('SVC_LOG_LEVEL takes the levels pino knows and refuses anything else', () => {
    expect(loadConfig({ SVC_LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
    expect(loadConfig({}).logLevel).toBe('info');
    expect(() => loadConfig({ SVC_LOG_LEVEL: 'verbose' })).toThrow(/SVC_LOG_LEVEL must be one of trace, debug/);
  });
});

describe('request ids', () => {
  it("every line a request causes carries its id: the client's plain token, else a new one, answered as X-Request-Id", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-logs-'));
    // A seat on a closed port: the council probe, run inside the request, logs a failure.
    const closed = await freePort();
    writeFileSync(
      join(dir, 'council.json'),
      JSON.stringify({
        endpoint: `http://127.0.0.1:${closed}/v1`,
        timeout_ms: 500,
        seats: [{ id: 'a', label: 'A', model: 'm', key_env: 'KEY_A' }],
      }),
    );
    const { lines, log } = capture('info');
    const cfg = loadConfig({ SVC_DATA_DIR: dir, PORT: '0', SVC_WORKERS: '1', SVC_LEDGER: 'off', KEY_A: 'k' });
    const s = await startServer(cfg, { log, env: { KEY_A: 'k' } });
    try {
      const mine = await fetch(`${s.url}/api/status/council`, { headers: { 'x-request-id': 'trace-4711.a:b' } });
      await mine.arrayBuffer();
      expect(mine.headers.get('x-request-id')).toBe('trace-4711.a:b');
      const caused = lines.filter((l) => l.req_id === 'trace-4711.a:b').map((l) => l.event);
      expect(caused).toContain('council_seat_failed');
      expect(caused).toContain('request');
      // Lines no request caused carry none.
      expect(lines.find((l) => l.event === 'listening')?.req_id).toBeUndefined();
      for (const hostile of ['x'.repeat(65), 'a b', '<script>', 'é']) {
        const r = await fetch(`${s.url}/healthz`, { headers: { 'x-request-id': encodeURI(hostile) === hostile ? hostile : 'a b' } });
        await r.arrayBuffer();
        const id = r.headers.get('x-request-id')!;
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }
      const r1 = await fetch(`${s.url}/healthz`);
      const r2 = await fetch(`${s.url}/healthz`);
      await Promise.all([r1.arrayBuffer(), r2.arrayBuffer()]);
      expect(r1.headers.get('x-request-id')).not.toBe(r2.headers.get('x-request-id'));
      const ids = lines.filter((l) => l.event === 'request').map((l) => l.req_id);
      expect(ids).toContain(r1.headers.get('x-request-id'));
      expect(ids).toContain(r2.headers.get('x-request-id'));
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
