// `npm start` as the README gives it: on this machine's older system Node it serves under Node 24
// from the npm registry, with native ML-DSA-87 and SLH-DSA (node:crypto), and says so at start.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueProof } from '@svc/core';
import { testKeys } from '@svc/core/testing';
import { call } from './harness.js';

const START = fileURLToPath(new URL('../../../scripts/start.mjs', import.meta.url));

describe('npm start', () => {
  it('runs the server on a runtime with native crypto and logs the backend of each algorithm', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-start-'));
    const port = 24000 + Math.floor(Math.random() * 1000);
    const child = spawn(process.execPath, [START, '--port', String(port)], {
      env: { ...process.env, SVC_DATA_DIR: dir, SVC_WORKERS: '1' },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // The first start on a fresh clone compiles better-sqlite3 for Node 24 (about 80 s here).
    for (let i = 0; i < 2400 && !out.includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 100));
    const line = out.split('\n').find((l) => l.includes('"crypto_backend"'));
    expect(line, out.slice(-2000)).toBeDefined();
    const b = JSON.parse(line!);
    expect(Number(b.node.split('.')[0])).toBeGreaterThanOrEqual(24);
    expect(b).toMatchObject({ 'ML-DSA-87': 'node:crypto', 'SLH-DSA-SHA2-256f': 'node:crypto', 'Falcon-1024': 'noble' });
    const proof = issueProof({ answer: 'native', model: 'm', ts: 1 }, { receipt: testKeys('start').answer });
    const r = await call(`http://127.0.0.1:${port}`, '/api/v1/verify', { json: proof });
    expect(r.status).toBe(200);
    expect(r.body.verdict.overallOk).toBe(true);
    expect((await call(`http://127.0.0.1:${port}`, '/api/transparency/ledger')).body.signed_tree_head).not.toBeNull();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 400_000);
});
