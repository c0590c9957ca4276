#!/usr/bin/env node
// npm run fuzz -- [--minutes N] [--seed S] [--core-procs P] [--no-docs]
// The long campaign: the HTTP fuzzer against `svc serve` (RSS sampled), the structure-aware core
// fuzzer in P processes, and SIGKILL during appends, all at once for N minutes. Writes the figures
// to docs/reliability.md (unless --no-docs) and exits 1 on any finding.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { machine } from '../bench/util.mjs';
import { sigkillCampaign } from './fuzz/sigkill.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    seed: { type: 'string' },
    'core-procs': { type: 'string', default: '1' },
    'no-docs': { type: 'boolean' },
  },
});
const minutes = Number(values.minutes);
if (!(minutes > 0)) throw new Error('--minutes must be a positive number');
const seed = values.seed ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const started = Date.now();
const until = started + minutes * 60_000;
console.log(`fuzz campaign: ${minutes} min, seed ${seed}, ${machine()}`);

// The HTTP fuzzer is TypeScript kept beside the tests; bundle it for this script, inside the
// repository so that it resolves @svc/core from node_modules.
const outFile = join(root, 'node_modules', '.cache', 'svc-fuzz', 'http-fuzz.mjs');
await build({
  entryPoints: [join(root, 'packages/server/test/fuzz/http-fuzz.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: outFile,
  external: ['@svc/core', '@svc/core/testing'],
  logLevel: 'error',
});
const { runHttpFuzz } = await import(outFile);

// The server under test, in its own process so a crash is seen as one.
const dataDir = mkdtempSync(join(tmpdir(), 'svc-fuzz-data-'));
const port = 23000 + Math.floor(Math.random() * 1000);
const server = spawn(process.execPath, [join(root, 'packages/server/dist/cli.js'), 'serve'], {
  env: {
    ...process.env,
    SVC_DATA_DIR: dataDir,
    PORT: String(port),
    SVC_LOG: '0',
    SVC_RATE_VERIFY: '0',
    SVC_RATE_READ: '0',
    SVC_RATE_MODEL_KEYS: '0',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
let serverExit = null;
server.on('exit', (code, signal) => (serverExit = code ?? signal));
for (let i = 0; i < 100; i++) {
  const ok = await fetch(`http://127.0.0.1:${port}/api/cbom`).then(
    (r) => r.ok,
    () => false,
  );
  if (ok) break;
  await new Promise((r) => setTimeout(r, 100));
}
const rss = [];
const rssOf = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
};
const sampler = setInterval(() => rss.push({ t: (Date.now() - started) / 1000, mb: rssOf(server.pid) }), 5000);

const core = Array.from(
  { length: Number(values['core-procs']) },
  (_, i) =>
    new Promise((resolve) => {
      const c = spawn(process.execPath, [join(root, 'scripts/fuzz/core-worker.mjs'), String(seed + i + 1), String(until)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.on('exit', (code) => {
        try {
          resolve({ ...JSON.parse(out), exit: code });
        } catch {
          resolve({ inputs: 0, findings: [{ kind: 'throw', detail: `core fuzzer process exited ${code}` }], exit: code });
        }
      });
    }),
);
const http = runHttpFuzz({ port, seed, stop: () => Date.now() >= until, alive: () => serverExit === null });
const sigkill = sigkillCampaign({ until, seed });
const [h, k, ...c] = await Promise.all([http, sigkill, ...core]);
clearInterval(sampler);
server.kill('SIGTERM');
const serverCode = await new Promise((r) => (serverExit !== null ? r(serverExit) : server.once('exit', (code) => r(code))));

const coreInputs = c.reduce((a, x) => a + x.inputs, 0);
const coreFindings = c.flatMap((x) => x.findings);
const forgeries = coreFindings.filter((f) => f.kind === 'forgery').length;
const coreThrows = coreFindings.filter((f) => f.kind === 'throw').length;
const coreSlow = coreFindings.filter((f) => f.kind === 'slow').length;
const http5xx = h.findings.filter((f) => f.kind === '5xx').length;
const hangs = h.findings.filter((f) => f.kind === 'hang').length;
const crashes = h.findings.filter((f) => f.kind === 'dead').length + (serverCode === 0 ? 0 : 1);
const valid = rss.filter((x) => Number.isFinite(x.mb));
const med = (xs) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);
const firstMin = med(valid.filter((x) => x.t <= 90).map((x) => x.mb));
const lastMin = med(valid.filter((x) => x.t >= minutes * 60 - 60).map((x) => x.mb));
const maxRss = Math.max(...valid.map((x) => x.mb));
const elapsed = ((Date.now() - started) / 60_000).toFixed(1);
const failed = crashes + http5xx + hangs + k.lost + k.splitHeads + (k.withheld ? 1 : 0) + forgeries + coreThrows + coreSlow > 0;
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

const report = `# Reliability: what the fuzz campaign tried, and what it found

Regenerated by \`npm run fuzz -- --minutes ${minutes} --seed ${seed}${values['core-procs'] !== '1' ? ` --core-procs ${values['core-procs']}` : ''}\` (rerun it with the same seed to
replay the same random cases). A bounded slice of each fuzzer runs in every \`npm test\`.

- Machine: ${machine()}
- Ran: ${new Date(started).toISOString()}, ${elapsed} minutes, all parts at once on the same cores.

| part | inputs | findings |
|---|---|---|
| HTTP fuzzer (raw sockets: request lines, targets, headers, chunked framing, queries, methods, bodies of every kind mutated) against \`svc serve\` | ${h.cases} requests | ${crashes} crashes, ${http5xx} 5xx, ${hangs} hangs |
| Structure-aware core fuzzer (every bundle kind: members, types, nesting to 200,000, Unicode, raw JSON bytes) | ${coreInputs} documents | ${coreThrows} untyped throws, ${coreSlow} calls over 1 s, ${forgeries} forgeries |
| SIGKILL during appends | ${k.kills} kills, ${k.acknowledged} acknowledged leaves | ${k.lost} lost, ${k.splitHeads} sizes with two roots, full check: ${k.withheld ?? 'passed'} |

Server memory (RSS, sampled every 5 s): ${f1(firstMin)} MiB median in the first 90 s, ${f1(lastMin)} MiB median in the
last minute, ${f1(maxRss)} MiB at most.

HTTP answers by status: ${Object.entries(h.statuses)
  .map(([s, n]) => `${s}: ${n}`)
  .join(', ')}. (503 answers come only from
the council probe, which has no model plane configured here and answers its documented 503 {ok:false}.)
Core outcomes: ${c.reduce((a, x) => a + x.verdicts, 0)} verdicts (${c.reduce((a, x) => a + x.passed, 0)} passing, all of them unchanged or changed only in display-only members), refusals ${JSON.stringify(
  c.reduce((a, x) => {
    for (const [k2, v] of Object.entries(x.refusals ?? {})) a[k2] = (a[k2] ?? 0) + v;
    return a;
  }, {}),
)}; slowest call ${f1(Math.max(...c.map((x) => x.maxMs ?? 0)))} ms.

Result: **${failed ? 'FINDINGS (see the campaign output)' : 'no findings'}**.
${failed ? `\n\`\`\`\n${JSON.stringify({ http: h.findings.slice(0, 20), core: coreFindings.slice(0, 20), sigkill: k }, null, 1)}\n\`\`\`\n` : ''}
## What was closed before this campaign (issue 10)

Each has a test in the default \`npm test\` that failed before the fix:

| hole | test |
|---|---|
| a malformed request target (\`GET //\`) killed the process | hostile-http.test.ts "request targets"; HTTP fuzzer fixed corpus |
| a reply nested 2,000 deep hung the worker pool for good | pool.test.ts, hostile-http.test.ts |
| \`svc issue\` signed heads over a forked log | storage-damage.test.ts "never signed over" |
| damaged storage crashed the server or kept it from starting | storage-damage.test.ts "unreadable storage", "files the server cannot write or read" |
| GET /api/transparency/ledger answered 500 on live corruption | storage-damage.test.ts |
| lone surrogates: a different answer verified | core surrogates.test.ts; the core fuzzer mutates U+FFFD into lone surrogates |
| deep nesting in evidence gave 500 | hostile-http.test.ts |
| local history loss went unnoticed | storage-damage.test.ts "history loss is a rollback" |
| SIGTERM hung behind a stalled upload | shutdown.test.ts |
| a 413 reached fetch clients as a reset | hostile-http.test.ts "413 that clients can read" |
| an unbounded verification queue | pool.test.ts, hostile-http.test.ts "overload" |
| fixed calendar-minute rate windows | ratelimit.test.ts |
| history lists that depended on when the server started | storage-damage.test.ts "rule 1" |
| HEAD answered 405 on GET routes | hostile-http.test.ts "HEAD" |
`;
if (!values['no-docs']) writeFileSync(join(root, 'docs', 'reliability.md'), report);
console.log(report);
process.exit(failed ? 1 : 0);
