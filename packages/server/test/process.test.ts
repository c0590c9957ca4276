// The server as an operator runs it: `svc serve` with environment configuration, structured logs
// without bodies, client IPs behind a trusted proxy, and graceful shutdown on SIGTERM.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueProof } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
import { clientIp } from '../src/internal.js';
import { boot, call } from './support/harness.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

describe('svc serve', () => {
  it('serves on env config, logs one JSON line per request without bodies, stops cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-serve-'));
    const port = 19000 + Math.floor(Math.random() * 1000);
    const child = spawn(process.execPath, [CLI, 'serve'], {
      env: { ...process.env, SVC_DATA_DIR: dir, PORT: String(port), SVC_SERVICE_NAME: 'acme', SVC_WORKERS: '1' },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    for (let i = 0; i < 600 && !out.includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('"dev_keys_generated"');
    const base = `http://127.0.0.1:${port}`;
    const secret = 'a distinctive answer that must never reach the logs';
    const b = issueProof({ answer: secret, model: 'm', ts: 1 }, { receipt: testKeys('acme').answer }, { service: 'acme' });
    const r = await call(base, '/api/v1/verify', { json: b });
    expect(r.status).toBe(200);
    expect(r.body.service).toBe('acme');
    expect(r.body.kind).toBe('acme-proof');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const req = lines.find((l) => l.event === 'request' && l.path === '/api/v1/verify');
    expect(req).toMatchObject({ method: 'POST', status: 200 });
    expect(typeof req.ms).toBe('number');
    expect(out).not.toContain(secret);
    expect(lines[lines.length - 1].event).toBe('stopped');
  }, 60_000);
});

describe('packaging', () => {
  it('CommonJS code can require @svc/core and @svc/core/schemas on this Node', async () => {
    const out = await new Promise<string>((resolve) => {
      const c = spawn(
        process.execPath,
        [
          '-e',
          "const c = require('@svc/core'); const s = require('@svc/core/schemas'); process.stdout.write(typeof c.verifyBundle + ' ' + typeof s.ProofBundle)",
        ],
        { cwd: fileURLToPath(new URL('..', import.meta.url)) },
      );
      let o = '';
      c.stdout.on('data', (d) => (o += d));
      c.on('close', () => resolve(o));
    });
    expect(out).toBe('function object');
  });
});

describe('client IP', () => {
  it('comes from the socket unless the socket is a trusted proxy', () => {
    expect(clientIp('::ffff:10.0.0.5', '1.2.3.4', [])).toBe('10.0.0.5');
    expect(clientIp('10.0.0.5', '1.2.3.4', ['10.0.0.9'])).toBe('10.0.0.5');
    expect(clientIp('10.0.0.9', '1.2.3.4', ['10.0.0.9'])).toBe('1.2.3.4');
    // The nearest untrusted hop wins; a client cannot spoof by prepending addresses.
    expect(clientIp('10.0.0.9', '6.6.6.6, 1.2.3.4, 10.0.0.8', ['10.0.0.9', '10.0.0.8'])).toBe('1.2.3.4');
  });

  it('rate limits apply per forwarded client behind a trusted proxy', async () => {
    const s = await boot({ rate: { verify: 1, read: 1000, modelKeys: 1000, tiles: 0 }, trustedProxies: ['127.0.0.1'] });
    try {
      const post = (ip: string) => call(s.url, '/api/v1/verify', { method: 'POST', body: '{}', headers: { 'x-forwarded-for': ip } });
      expect((await post('1.1.1.1')).status).toBe(422);
      expect((await post('1.1.1.1')).status).toBe(429);
      expect((await post('2.2.2.2')).status).toBe(422);
    } finally {
      await s.stop();
    }
  });
});
