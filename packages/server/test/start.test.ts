// `npm start` as the README gives it: on this machine's older system Node it serves under Node 24
// from the npm registry, with native ML-DSA-87 and SLH-DSA (node:crypto), and says so at start.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueProof } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
import { call } from './support/harness.js';

const START = fileURLToPath(new URL('../../../tools/scripts/start.mjs', import.meta.url));

describe('npm start', () => {
  it('runs the server on a runtime with native crypto and logs the backend of each algorithm', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-start-'));
    const port = 24000 + Math.floor(Math.random() * 1000);
    // Its own process group, as a terminal gives a foreground job: Ctrl-C reaches every process in it.
    const child = spawn(process.execPath, [START, '--port', String(port)], {
      env: { ...process.env, SVC_DATA_DIR: dir, SVC_WORKERS: '1' },
      detached: true,
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
    // Answering, not only listening: on a loaded two-core machine the port once refused the first
    // request just after the "listening" line (CI, once in four runs).
    let healthy = false;
    for (let i = 0; i < 600 && !healthy; i++) {
      healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!healthy) await new Promise((r) => setTimeout(r, 100));
    }
    expect(healthy, out.slice(-2000)).toBe(true);
    const proof = issueProof({ answer: 'native', model: 'm', ts: 1 }, { receipt: testKeys('start').answer });
    const r = await call(`http://127.0.0.1:${port}`, '/api/v1/verify', { json: proof });
    expect(r.status).toBe(200);
    expect(r.body.verdict.overallOk).toBe(true);
    expect((await call(`http://127.0.0.1:${port}`, '/api/transparency/ledger')).body.signed_tree_head).not.toBeNull();
    // Ctrl-C: SIGINT to the whole group, so the server gets it from the terminal and again from the
    // launcher; the graceful shutdown runs once and both exit 0.
    process.kill(-child.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    expect(out).toContain('"event":"stopped"');
  }, 400_000);
});

describe('npm start under a supervisor that signals npm alone', () => {
  it('SIGTERM to the npm process stops the server too: nothing is left serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-start-npm-'));
    const port = 25000 + Math.floor(Math.random() * 1000);
    // npm runs the script under `sh -c`; the signal reaches npm only, which ends the shell.
    const npm = spawn('npm', ['start', '--', '--port', String(port)], {
      cwd: fileURLToPath(new URL('../../../', import.meta.url)),
      env: { ...process.env, SVC_DATA_DIR: dir, SVC_PROCESSES: '1', SVC_WORKERS: '1' },
    });
    let out = '';
    npm.stdout.on('data', (c) => (out += c));
    npm.stderr.on('data', (c) => (out += c));
    for (let i = 0; i < 2400 && !out.includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 100));
    const listening = out.split('\n').find((l) => l.includes('"listening"'));
    expect(listening, out.slice(-2000)).toBeDefined();
    const serverPid = JSON.parse(listening!).pid as number;
    npm.kill('SIGTERM');
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 150 && alive(serverPid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(serverPid)).toBe(false);
    await expect(call(`http://127.0.0.1:${port}`, '/healthz')).rejects.toThrow();
    expect(out).toContain('"event":"stopped"');
  }, 400_000);
});

describe('npm start builds only when a source changed', () => {
  it('fresh after a build; stale once a source is newer than the build, or an output is missing', async () => {
    const { staleBecause } = await import('@svc/tools/build-if-stale');
    const { cpSync, utimesSync, rmSync } = await import('node:fs');
    // A copy of the tree's sources and builds, so touching files here cannot disturb other tests.
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), 'svc-stale-'));
    for (const p of [
      'packages/core/src',
      'packages/core/tsup.config.ts',
      'packages/core/package.json',
      'packages/core/dist',
      'packages/server/src',
      'packages/server/page',
      'packages/server/tsup.config.ts',
      'packages/server/package.json',
      'packages/server/dist',
      'packages/server/scripts/build-page.mjs',
    ])
      cpSync(join(root, p), join(dir, p), { recursive: true });
    const past = new Date(Date.now() - 60_000);
    const src = join(dir, 'packages/server/src/app.ts');
    utimesSync(src, past, past);
    for (const f of ['packages/core/src', 'packages/server/src', 'packages/server/page', 'packages/server/scripts/build-page.mjs']) {
      const { readdirSync, statSync } = await import('node:fs');
      const walk = (p: string): void => {
        if (statSync(p).isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
        else utimesSync(p, past, past);
      };
      walk(join(dir, f));
    }
    for (const f of ['tsup.config.ts', 'package.json'])
      for (const p of ['core', 'server']) utimesSync(join(dir, 'packages', p, f), past, past);
    expect(staleBecause(dir)).toBeNull();
    const now = new Date();
    utimesSync(src, now, now);
    expect(staleBecause(dir)).toMatch(/a source changed/);
    utimesSync(src, past, past);
    rmSync(join(dir, 'packages/core/dist/index.js'));
    expect(staleBecause(dir)).toMatch(/core\/dist\/index\.js is missing/);
    rmSync(dir, { recursive: true, force: true });
  });
});
