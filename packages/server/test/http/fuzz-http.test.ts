// A bounded slice of the HTTP fuzzer in every test run: the fixed corpus of requests that once broke
// the service, then random cases from a fixed seed, against `svc serve` in its own process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixedCases, runHttpFuzz, statusOk } from '../fuzz/http-fuzz.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const CASES = Number(process.env.FUZZ_HTTP_CASES ?? 300);
let child: ChildProcess;
let port: number;
let exited = false;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fuzz-'));
  port = 22000 + Math.floor(Math.random() * 1000);
  child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      ...process.env,
      SVC_DATA_DIR: dir,
      PORT: String(port),
      // Two processes whatever the machine: the default layout on two cores, and restarts are counted.
      SVC_PROCESSES: '2',
      SVC_WORKERS: '1',
      SVC_RATE_VERIFY: '0',
      SVC_RATE_READ: '0',
      SVC_RATE_MODEL_KEYS: '0',
    },
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.on('exit', () => (exited = true));
  for (let i = 0; i < 600 && !out.includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 100));
});
afterAll(() => {
  child.kill('SIGTERM');
});

describe('HTTP fuzzer (bounded slice)', () => {
  it('a 503 is excused where the spec documents it, judged by the request target whatever the case is named', () => {
    const ledger = fixedCases().find((c) => c.name === 'HEAD ledger')!;
    expect(statusOk(ledger, 503)).toBe(true);
    expect(statusOk(ledger, 500)).toBe(false);
    expect(statusOk(fixedCases().find((c) => c.name === 'HEAD cbom')!, 503)).toBe(false);
  });

  it(`the fixed corpus and ${CASES} random cases: no 5xx, no hang, the process lives`, async () => {
    const stats = await runHttpFuzz({ port, seed: 20261122, cases: CASES, alive: () => !exited });
    expect(stats.findings).toEqual([]);
    expect(stats.cases).toBe(CASES + fixedCases().length);
    // The slice reaches the handlers, not only the parser: verdicts and refusals both occur.
    expect(stats.statuses['200']).toBeGreaterThan(10);
    expect(stats.statuses['400']).toBeGreaterThan(5);
    expect(exited).toBe(false);
    // svc serve runs a process per core: one that died would have been restarted, and counted.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^svc_process_restarts_total 0$/m);
  }, 300_000);
});
