import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { namesFor } from '@svc/core';
import { Issuer, Keyring, ensureKeys, loadConfig } from '../packages/server/dist/internal.js';
const dir = mkdtempSync('/tmp/prof-');
ensureKeys(loadConfig({ SVC_DATA_DIR: dir }), () => {});
const ring = Keyring.load(join(dir, 'keys')).ring;
const bundle = await new Issuer(ring, namesFor('svc'), null, { bridge: false }).issue({ answer: 'Benchmark answer. '.repeat(10) });
const port = 19555;
const s = spawn(
  process.execPath,
  [
    '--cpu-prof',
    '--cpu-prof-dir=/tmp/cpuprof',
    '../packages/server/dist/cli.js'.replace('..', process.cwd() + '/packages/..'),
    'serve',
  ].map((x) => x.replace('/packages/../packages', '/packages')),
  {
    env: {
      ...process.env,
      SVC_DATA_DIR: dir,
      PORT: String(port),
      SVC_PROCESSES: '1',
      SVC_WORKERS: '0',
      SVC_RATE_VERIFY: '0',
      SVC_LOG: '0',
      SVC_LEDGER: '0',
      SVC_METRICS: 'off',
    },
    stdio: 'inherit',
  },
);
for (let i = 0; i < 100; i++) {
  try {
    await fetch(`http://127.0.0.1:${port}/readyz`);
    break;
  } catch {
    await new Promise((r) => setTimeout(r, 100));
  }
}
const r = await autocannon({
  url: `http://127.0.0.1:${port}/api/v1/verify`,
  method: 'POST',
  body: JSON.stringify(bundle),
  headers: { 'content-type': 'application/json' },
  connections: 8,
  duration: 6,
});
console.log('rps', r.requests.average);
s.kill('SIGTERM');
await new Promise((r) => s.once('exit', r));
