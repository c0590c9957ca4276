#!/usr/bin/env node
// npm run fuzz -- [--minutes N] [--seed S] [--only http,core,sigkill,peers,cluster,front] [--core-procs P] [--native] [--pg] [--no-docs]
// The long campaign: the HTTP fuzzer against `svc serve` (RSS sampled), the structure-aware core
// fuzzer in P processes (--native: under Node 24 on node:crypto, about ten times the inputs), and
// SIGKILL during appends, and hostile peers with overlapping exports (fuzz/peers.mjs), at once for N minutes; `--only cluster` runs the cluster campaign alone
// (floods of each public route, slow readers, server processes killed and frozen; its bystander
// latency is only meaningful with nothing else on the cores). Writes its section of docs/reliability.md (one
// section per set of parts, so a full campaign and a long core-only one stand side by side) unless
// --no-docs, and exits 1 on any finding.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { machine } from '../lib/machine.mjs';
import { processTree } from '../lib/proc.mjs';
import { sigkillCampaign } from './fuzz/sigkill.mjs';
import { clusterCampaign } from './fuzz/cluster.mjs';
import { peersCampaign } from './fuzz/peers.mjs';
import { ensureNode24, onNode24 } from '../lib/node24.mjs';
import { root } from '../lib/root.mjs';

// The server fuzzers start svc serve and open its SQLite: Node 24 (run again on it when older).
onNode24();

/** The full campaign's parts (the cluster campaign runs alone: its latency needs the cores). */
const FULL = 'http,core,sigkill,peers,front';
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    seed: { type: 'string' },
    only: { type: 'string', default: FULL },
    'core-procs': { type: 'string', default: '1' },
    native: { type: 'boolean' },
    // The SIGKILL part against a PostgreSQL log (started here) with three appenders at once.
    pg: { type: 'boolean' },
    'no-docs': { type: 'boolean' },
  },
});
const minutes = Number(values.minutes);
if (!(minutes > 0)) throw new Error('--minutes must be a positive number');
const parts = new Set(values.only.split(',').map((s) => s.trim()));
for (const p of parts)
  if (!['http', 'core', 'sigkill', 'peers', 'cluster', 'front'].includes(p))
    throw new Error(`--only takes http, core, sigkill, peers, cluster and front, got ${p}`);
const procs = Number(values['core-procs']);
const seed = values.seed ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const started = Date.now();
const until = started + minutes * 60_000;
console.log(`fuzz campaign: ${[...parts].join(', ')}, ${minutes} min, seed ${seed}, ${machine()}`);

// --- HTTP against a server in its own process, so a crash is seen as one.
async function httpPart() {
  // The HTTP fuzzer is TypeScript kept beside the tests; bundled inside the repository so that it
  // resolves @svc/core from node_modules.
  const outFile = join(root, 'node_modules', '.cache', 'svc-fuzz', 'http-fuzz.mjs');
  await build({
    entryPoints: [join(root, 'packages/server/test/fuzz/http-fuzz.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: outFile,
    external: ['@svc/core', '@svc/core/testing', '@svc/core/arbitraries'],
    logLevel: 'error',
  });
  const { runHttpFuzz, stallWave } = await import(outFile);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-fuzz-data-'));
  await seedLedger(dataDir, 2_000);
  const port = 23000 + Math.floor(Math.random() * 1000);
  const env = {
    ...process.env,
    SVC_DATA_DIR: dataDir,
    PORT: String(port),
    SVC_LOG: '0',
    SVC_RATE_VERIFY: '0',
    SVC_RATE_READ: '0',
    SVC_RATE_MODEL_KEYS: '0',
  };
  const server = spawn(process.execPath, [join(root, 'packages/server/dist/cli.js'), 'serve'], {
    env,
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
  // The whole server: the primary, its server processes and their storage processes (svc serve
  // runs one process per core by default).
  const rssOf = (pid) => processTree(pid).mb;
  const sampler = setInterval(() => rss.push({ t: (Date.now() - started) / 1000, mb: rssOf(server.pid) }), 5000);
  // Beside the random cases: waves of 1,000 stalled uploads from distinct addresses, and damage done
  // to the ledger files under the running server (shrunk, edited in place, restored over).
  const waves = [];
  const damage = [];
  const chaos = (async () => {
    for (let w = 0; Date.now() < until - 45_000; w++) {
      await new Promise((r) => setTimeout(r, 20_000));
      if (Date.now() >= until - 45_000 || serverExit !== null) break;
      if (w % 2 === 0) {
        const before = rssOf(server.pid);
        const wave = await stallWave(port, 1000);
        waves.push({ ...wave, rssBefore: before, rssAfter: rssOf(server.pid) });
      } else damage.push(await damageLedger(dataDir, w));
    }
  })();
  const h = await runHttpFuzz({ port, seed, stop: () => Date.now() >= until, alive: () => serverExit === null });
  await chaos;
  clearInterval(sampler);
  // The primary restarts a server process that dies; each restart is a crash the fuzzer caused.
  const restarts = await fetch(`http://127.0.0.1:${port}/metrics`)
    .then((r) => r.text())
    .then((t) => Number(/^svc_process_restarts_total (\d+)/m.exec(t)?.[1] ?? 0))
    .catch(() => 0);
  server.kill('SIGTERM');
  const code = await new Promise((r) => (serverExit !== null ? r(serverExit) : server.once('exit', (c) => r(c))));
  const valid = rss.filter((x) => Number.isFinite(x.mb));
  const med = (xs) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : Number.NaN);
  return {
    ...h,
    waves,
    damage,
    crashes: h.findings.filter((f) => f.kind === 'dead').length + (code === 0 ? 0 : 1) + restarts,
    rss: {
      first: med(valid.filter((x) => x.t <= 90).map((x) => x.mb)),
      last: med(valid.filter((x) => x.t >= minutes * 60 - 60).map((x) => x.mb)),
      max: Math.max(...valid.map((x) => x.mb)),
    },
  };
}

/** A ledger of `n` answers in the data folder, so damage to it has something to damage. */
async function seedLedger(dir, n) {
  const { ensureKeys, loadConfig, openLedger } = await import(join(root, 'packages/server/dist/internal.js'));
  const { namesFor } = await import('@svc/core');
  const { sha256, utf8 } = await import('@svc/core/primitives');
  const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
  const ledger = await openLedger(
    cfg,
    namesFor('svc'),
    ensureKeys(cfg, () => {}),
    () => {},
    { background: false, batchMs: 0 },
  );
  for (let i = 0; i < n; i += 100) await ledger.append(Array.from({ length: 100 }, (_, k) => sha256(utf8(`seed ${i + k}`))));
  await ledger.close();
}

/** One kind of damage to the serving ledger's files, in turn; returns what was done. */
async function damageLedger(dir, w) {
  const { DatabaseSync } = await import('node:sqlite');
  const { copyFileSync, existsSync, statSync, truncateSync } = await import('node:fs');
  const file = join(dir, 'ledger.sqlite');
  const kinds = ['shm truncated', 'leaf edited in place', 'file truncated to half', 'older copy restored'];
  const kind = kinds[Math.floor(w / 2) % kinds.length];
  try {
    if (kind === 'shm truncated' && existsSync(`${file}-shm`)) truncateSync(`${file}-shm`, 0);
    else if (kind === 'leaf edited in place') {
      const db = new DatabaseSync(file, { timeout: 10_000 });
      db.prepare('UPDATE leaves SET data = zeroblob(32) WHERE idx = ?').run(w);
      db.close();
    } else if (kind === 'file truncated to half') {
      copyFileSync(file, `${file}.old`);
      truncateSync(file, Math.floor(statSync(file).size / 2));
    } else if (existsSync(`${file}.old`)) copyFileSync(`${file}.old`, file);
  } catch (e) {
    return `${kind}: ${e.message}`;
  }
  return kind;
}

// --- the core fuzzer in P processes.
function corePart() {
  const node = values.native ? ensureNode24({ quiet: true }) : process.execPath;
  if (!node) throw new Error('--native needs Node 24, which could not be installed');
  return Promise.all(
    Array.from(
      { length: procs },
      (_, i) =>
        new Promise((resolve) => {
          const env = { ...process.env, ...(values.native ? { SVC_FUZZ_NATIVE: '1' } : {}) };
          const c = spawn(node, ['--no-warnings', join(root, 'tools/scripts/fuzz/core-worker.mjs'), String(seed + i + 1), String(until)], {
            stdio: ['ignore', 'pipe', 'inherit'],
            env,
          });
          let out = '';
          c.stdout.on('data', (d) => (out += d));
          c.on('exit', (code) => {
            try {
              resolve({ ...JSON.parse(out), exit: code });
            } catch {
              resolve({
                inputs: 0,
                verdicts: 0,
                passed: 0,
                refusals: {},
                maxMs: 0,
                findings: [{ kind: 'throw', detail: `core fuzzer process exited ${code}` }],
                exit: code,
              });
            }
          });
        }),
    ),
  );
}

// --- The stream fuzzer (test/fuzz/stream-fuzz.ts) through the front, read by the openai package:
// the bounded test run with more cases and this campaign's seed; about 4 cases a second here.
async function frontPart() {
  const cases = Math.max(80, Math.round(minutes * 60 * 4));
  const child = spawn(
    process.execPath,
    [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'server', 'packages/server/test/issuing/fuzz-front.test.ts'],
    {
      cwd: root,
      env: { ...process.env, FUZZ_FRONT_CASES: String(cases), FUZZ_FRONT_SEED: String(seed) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise((r) => child.on('exit', r));
  const findings = [...out.matchAll(/"(stream \d+: [^"]*)"/g)].map((m) => m[1]);
  if (code !== 0 && findings.length === 0) findings.push(`the front fuzzer exited ${code}: ${out.slice(-500)}`);
  return { cases, findings };
}

const [h, k, c, cl, pe, fr] = await Promise.all([
  parts.has('http') ? httpPart() : null,
  parts.has('sigkill') ? sigkillCampaign({ until, seed, pg: !!values.pg }) : null,
  parts.has('core') ? corePart() : null,
  parts.has('cluster') ? clusterCampaign({ until, seed }) : null,
  parts.has('peers') ? peersCampaign({ until, seed }) : null,
  parts.has('front') ? frontPart() : null,
]);
const elapsed = ((Date.now() - started) / 60_000).toFixed(1);
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const n = (x) => x.toLocaleString('en');

const rows = [];
const notes = [];
let failed = false;
if (h) {
  const x5 = h.findings.filter((f) => f.kind === '5xx').length;
  const hangs = h.findings.filter((f) => f.kind === 'hang').length;
  failed ||= h.crashes + x5 + hangs > 0;
  rows.push(
    `| HTTP fuzzer (raw sockets: request lines, targets, headers, chunked framing, queries, methods, bodies of every kind mutated) against \`svc serve\` | ${n(h.cases)} requests | ${h.crashes} crashes, ${x5} 5xx, ${hangs} hangs |`,
  );
  notes.push(
    `Server memory (RSS of all its processes, sampled every 5 s): ${f1(h.rss.first)} MiB median in the first 90 s, ${f1(h.rss.last)} MiB median in the last minute, ${f1(h.rss.max)} MiB at most.`,
  );
  if (h.waves.length)
    notes.push(
      `Stalled uploads: ${h.waves.length} waves of 1,000 from distinct loopback addresses, each declaring 2,000,000 bytes and stalling one byte short; answers ${JSON.stringify(
        h.waves.reduce((a, w) => {
          for (const [s, v] of Object.entries(w.statuses)) a[s] = (a[s] ?? 0) + v;
          return a;
        }, {}),
      )}; RSS before and after each wave (MiB): ${h.waves.map((w) => `${f1(w.rssBefore)} → ${f1(w.rssAfter)}`).join(', ')}.`,
    );
  if (h.damage.length) notes.push(`Ledger files damaged under the running server, in turn: ${h.damage.join('; ')}.`);
  notes.push(
    `HTTP answers by status: ${Object.entries(h.statuses)
      .map(([s, v]) => `${s}: ${n(v)}`)
      .join(
        ', ',
      )}. (503 is documented for the council probe, which has no model plane configured here; for the ledger while its files are damaged; and for uploads past the body budget. 501 is the documented answer to a transfer coding other than chunked. Any other 5xx is a finding.)`,
  );
}
if (c) {
  const all = c.flatMap((x) => x.findings);
  const count = (kind) => all.filter((f) => f.kind === kind).length;
  failed ||= all.length > 0;
  const inputs = c.reduce((a, x) => a + x.inputs, 0);
  rows.push(
    `| Structure-aware core fuzzer, ${procs} process${procs > 1 ? 'es' : ''}${values.native ? ' on Node 24 node:crypto' : ''} (every bundle kind: members, types, nesting to 200,000, Unicode, raw JSON bytes) | ${n(inputs)} documents | ${count('throw')} untyped throws, ${count('slow')} calls over 1 s, ${count('forgery')} forgeries |`,
  );
  const refusals = c.reduce((a, x) => {
    for (const [key, v] of Object.entries(x.refusals ?? {})) a[key] = (a[key] ?? 0) + v;
    return a;
  }, {});
  const unsigned = c.reduce((a, x) => {
    for (const [key, v] of Object.entries(x.unsigned ?? {})) a[key] = (a[key] ?? 0) + v;
    return a;
  }, {});
  notes.push(
    `Unsigned-parts fuzzer (a third of each core process's time; within the documents above): ${Object.entries(unsigned)
      .map(([f, v]) => `${f} ${n(v)}`)
      .join(
        ', ',
      )} inputs. It changes, adds and removes every unsigned part of the signed formats (a statement's unprotected header, receipts' proof arrays, bundle layers), offers a document's own keys as if pinned, and one kind's signed object as another; a finding is anything reported as verified that moved.`,
  );
  notes.push(
    `Core outcomes: ${n(c.reduce((a, x) => a + x.verdicts, 0))} verdicts (${n(c.reduce((a, x) => a + x.passed, 0))} passing: unchanged documents or changes to display-only members), refusals ${JSON.stringify(refusals)}; slowest call ${f1(Math.max(...c.map((x) => x.maxMs ?? 0)))} ms.`,
  );
  if (all.length) notes.push(`\`\`\`\n${JSON.stringify(all.slice(0, 20), null, 1)}\n\`\`\``);
}
if (k) {
  failed ||= k.lost + k.splitHeads + k.crashes > 0 || !!k.withheld;
  const chaos = k.pg
    ? `, ${n(k.appenderFreezes)} appender freezes, ${n(k.dbFreezes)} database freezes, ${n(k.dbRestarts)} database restarts, ${n(k.terminations)} backend terminations`
    : '';
  rows.push(
    `| SIGKILL during appends${k.pg ? ' (PostgreSQL, three appenders at once; appenders and the database also frozen, the database restarted, its client backends terminated)' : ' (SQLite)'} | ${n(k.kills)} kills${chaos}, ${n(k.acknowledged)} acknowledged leaves | ${k.lost} lost, ${k.crashes} appender crashes, ${k.splitHeads} sizes with two roots, full check: ${k.withheld ?? 'passed'} |`,
  );
}
if (cl) {
  failed ||= cl.findings.length > 0;
  const worst = Math.max(...cl.phases.map((p) => p.bystander.p99));
  rows.push(
    `| Cluster (\`svc serve\`, a primary and 2 server processes): each public route flooded from one address over 100 connections, or pipelined 1,000 deep without reading, for 15 s in turn; verifies against a limit of 20 a minute from a second address; server processes SIGKILLed or frozen up to 2 s in every other phase | ${cl.phases.length} phases, ${n(Object.values(cl.statuses).reduce((a, b) => a + b, 0))} requests, ${cl.kills} kills, ${cl.freezes} freezes | ${cl.findings.length} findings; verifies allowed ${cl.allowed} (at most ${cl.most}); worst bystander p99 ${f1(worst)} ms |`,
  );
  notes.push(
    `Cluster phases (bystander: GET /api/provenance/pubkey every 100 ms from a third address, on a fresh connection each time):\n\n| flood | chaos | bystander answers | failed | p50 ms | p99 ms |\n|---|---|---|---|---|---|\n${cl.phases
      .map(
        (p) =>
          `| ${p.route} | ${p.chaos ? 'kills/freezes' : 'none'} | ${p.bystander.n} | ${p.bystander.failed} | ${f1(p.bystander.p50)} | ${f1(p.bystander.p99)} |`,
      )
      .join(
        '\n',
      )}\n\nAnswers by status: ${JSON.stringify(cl.statuses)} (0: the connection was refused or cut: the per-address cap, the pipelining bound, a killed process). Memory of the whole process tree: ${f1(cl.maxMb)} MiB at most.`,
  );
  if (cl.findings.length) notes.push(`\`\`\`\n${JSON.stringify(cl.findings.slice(0, 20), null, 1)}\n\`\`\``);
}
if (pe) {
  failed ||= pe.findings.length > 0;
  rows.push(
    `| Hostile peers: a tile source, a keys URL, a policy witness and a council seat answering endless, dripping, oversized, truncated, reset, silent, redirect-looping, gzip-bomb, huge-header, random and near-valid bodies; beside them overlapping \`svc ledger tiles\` exports of a growing log into one folder, stalled at random | ${n(pe.calls)} peer calls, ${n(pe.exports.runs)} exports in ${n(pe.exports.rounds)} rounds (log of ${n(pe.exports.size)} leaves) | ${pe.findings.length} findings (reads past a cap, calls past their deadline, untyped throws, a folder checkpoint older than the newest export or tiles that do not hash to it); memory grew ${f1(pe.grewMb)} MiB |`,
  );
  if (pe.findings.length) notes.push(`\`\`\`\n${JSON.stringify(pe.findings.slice(0, 20), null, 1)}\n\`\`\``);
}
if (fr) {
  failed ||= fr.findings.length > 0;
  rows.push(
    `| Upstream streams through the OpenAI-compatible front (line ends, comments, event names, choice shapes, tool-call pieces, refusals, finish reasons, error and proof-member events, truncation, UTF-8 split across writes, members beyond the messages), read by the openai package's loop | ${n(fr.cases)} streams | ${fr.findings.length} findings (a proof over other than what the client assembled, a log that grew without a proof, an undisclosed member) |`,
  );
  if (fr.findings.length) notes.push(`\`\`\`\n${fr.findings.slice(0, 20).join('\n')}\n\`\`\``);
}
if (k?.crashLogs?.length) notes.push(`\`\`\`\n${k.crashLogs.slice(0, 5).join('\n')}\n\`\`\``);
if (h?.findings.length) notes.push(`\`\`\`\n${JSON.stringify(h.findings.slice(0, 20), null, 1)}\n\`\`\``);

const FULL_KEY = FULL.split(',').sort().join('+');
const key = [...parts].sort().join('+') + (values.pg && parts.has('sigkill') ? '+pg' : '');
const full = [...parts].sort().join(',') === FULL.split(',').sort().join(',');
const flags = `--minutes ${minutes} --seed ${seed}${full ? '' : ` --only ${[...parts].join(',')}`}${procs !== 1 ? ` --core-procs ${procs}` : ''}${values.native ? ' --native' : ''}${values.pg ? ' --pg' : ''}`;
const section = `<!-- campaign:${key} -->
## ${full ? 'Full campaign' : `Campaign: ${[...parts].join(', ')}`}${values.pg && parts.has('sigkill') ? ' (PostgreSQL)' : ''}

\`npm run fuzz -- ${flags}\`: ran ${new Date(started).toISOString()}, ${elapsed} minutes, all parts at once on the same cores
(${machine()}). Rerun with the same seed to replay the same random cases.

| part | inputs | findings |
|---|---|---|
${rows.join('\n')}

${notes.join('\n\n')}

Result: **${failed ? 'FINDINGS (listed above)' : 'no findings'}**.
<!-- /campaign:${key} -->`;

const HEADER = `# Reliability: what the fuzz campaigns tried, and what they found

Each section below is rewritten by the campaign command it names (\`npm run fuzz -- ...\`); a
bounded slice of each fuzzer runs in every \`npm test\`. The HTTP fuzzer sends raw bytes over
loopback sockets and requires an answer (never a 5xx) after every case; the core fuzzer mutates
valid documents of every kind and flags any untyped throw, any call over a second, and any change
to signed content that still verifies; the SIGKILL part kills an appending process at random
points and then checks that every acknowledged leaf is in the log and that the full check passes;
the peers part points every client that reads someone else's service at a hostile peer and runs
overlapping exports into one folder, and requires every read capped, every call within its
deadline, every refusal typed, and the folder's checkpoint the newest with tiles that hash to it.`;
const CLOSED = `## What was closed before these campaigns (issue 10)

Each has a test in the default \`npm test\` that failed before the fix:

| hole | test |
|---|---|
| a malformed request target (\`GET //\`) killed the process | hostile-http.test.ts "request targets"; the HTTP fuzzer's fixed corpus |
| a reply nested 2,000 deep hung the worker pool for good | pool.test.ts, hostile-http.test.ts |
| \`svc issue\` signed heads over a forked log | storage-damage.test.ts "never signed over" |
| damaged storage crashed the server or kept it from starting | storage-damage.test.ts "unreadable storage", "files the server cannot write or read" |
| GET /api/transparency/ledger answered 500 on live corruption | storage-damage.test.ts |
| lone surrogates: a different answer verified | core surrogates.test.ts; the core fuzzer turns U+FFFD into lone surrogates |
| deep nesting in evidence gave 500 | hostile-http.test.ts |
| local history loss went unnoticed | storage-damage.test.ts "history loss is a rollback" |
| SIGTERM hung behind a stalled upload | shutdown.test.ts |
| a 413 reached fetch clients as a reset | hostile-http.test.ts "413 that clients can read" |
| an unbounded verification queue | pool.test.ts, hostile-http.test.ts "overload" |
| fixed calendar-minute rate windows | ratelimit.test.ts, handlers.test.ts |
| history lists that depended on when the server started | storage-damage.test.ts "rule 1" |
| HEAD answered 405 on GET routes | hostile-http.test.ts "HEAD", handlers.test.ts |

## What round four closed (issues 29 and 30)

Each has a test in the default \`npm test\` that failed on the code before the fix:

| hole | test |
|---|---|
| a rate limit the cluster primary could not decide within 2 s was allowed (fail open): 150-464 verifies against a limit of 40 | cluster/under-load.test.ts "a primary that cannot answer (frozen)" (8 of 8 allowed before, 0 after); load.test.ts; messages.test.ts |
| a /metrics flood made the primary aggregate per scrape: scrapes answered 500, bystanders stalled | cluster/under-load.test.ts "a /metrics flood"; the cluster campaign's /metrics phases |
| a send racing a server process's death (EPIPE) killed the primary | cluster/under-load.test.ts "EPIPE" (fixture fixtures/epipe-primary.mjs runs the real startPrimary) |
| with every server process down the primary exited 0; with the port taken it restarted in a loop and exited 0 | cluster/under-load.test.ts "every server process down", "a port already taken"; deploy.test.ts (Restart=always, --restart=on-failure) |
| slow readers pipelining 1,000 deep pinned 220 MB a wave until a timer fired, and stalled bystanders for 0.8-1.4 s | load.test.ts "100 connections each pipelining" (heap after the wave); the cluster campaign's PIPELINE phases |
| a 70,000-member inclusion body was parsed on the event loop | load.test.ts "an inclusion body is reduced to its normal form by the pool" |
| one IPv6 /64, and each spelling of one address, got windows of their own | http/address.test.ts |
| the page ran under script-src 'unsafe-inline' and could be framed | page/page.test.ts "Content-Security-Policy" |
| a witness's failing or repeated line was published with the checkpoint; a witness could make the log hold a gigabyte | tlog/witness-answers.test.ts |
| a hostile tile source or keys URL was read whole | cli/peer-caps.test.ts |
| a witness policy origin over 255 bytes failed other logs' submissions | tlog/witness-answers.test.ts "origin over 255 bytes" |
| a junk log signature on a forged tlogProof passed /api/v1/verify and /api/v1/evidence | ledger/forged-log-proof.test.ts |
| numbers no double holds (9007199254740993) verified while another parser reads another value | core numbers.test.ts; errors.json |
| \`org=%FF\` became U+FFFD in a record | hostile-http.test.ts "not UTF-8" |
| a cluster process killed by Ctrl-C before it listened made \`npm start\` exit 1 | cluster/under-load.test.ts "dies before listening" |

Where the fuzzers learned round four's families (#30), each with its bounded slice in \`npm test\`:

| family | fuzzer |
|---|---|
| witness answers: extra, repeated, oversized and failing lines | the peers part (a hostile witness; only lines that verify are published, within the cap); tlog/witness-answers.test.ts (property) |
| oversized bodies from every peer: witnesses, tile sources, council seats, keys URLs | the peers part (endless, dripping, oversized, gzip bombs, huge headers, redirect loops) |
| overlapping exports | the peers part (runs stalled at random into one folder; the newest checkpoint stays, tiles hash to it) |
| concurrent appenders and readers across processes | the SIGKILL part (appenders killed mid-write; \`--pg\`: three at once) |
| forged tlog proofs | the core fuzzer's logged proof, judged under a pinned log policy (a changed log layer that still reads as recognised is a forgery); the C2SP formats fuzzer |
| bidi and invisible characters | the core fuzzer's logged proof (its answer carries U+202E, U+2066, U+200B, U+200D, U+FEFF) |
| numbers beyond a double | the core fuzzer's inexact-number mutation (always refused) |`;

if (!values['no-docs']) {
  const file = join(root, 'docs', 'reliability.md');
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const sections = new Map([...old.matchAll(/<!-- campaign:([^ ]+) -->[\s\S]*?<!-- \/campaign:\1 -->/g)].map((m) => [m[1], m[0]]));
  sections.set(key, section);
  const ordered = [...sections.entries()]
    .sort(([a], [b]) => (a === FULL_KEY ? -1 : b === FULL_KEY ? 1 : a.localeCompare(b)))
    .map(([, v]) => v);
  // Sections written by hand or by other commands (the later rounds, test:stress) are kept as they are, after these.
  const outside = old.replace(/<!-- campaign:([^ ]+) -->[\s\S]*?<!-- \/campaign:\1 -->/g, '');
  const ownHeadings = new Set([...`${HEADER}\n${CLOSED}`.matchAll(/^## .*$/gm)].map((m) => m[0]));
  const kept = outside
    .split(/^(?=## )/m)
    .filter((part) => part.startsWith('## ') && !ownHeadings.has(part.split('\n', 1)[0]))
    .map((part) => part.trimEnd());
  writeFileSync(file, `${[HEADER, ...ordered, CLOSED, ...kept].join('\n\n')}\n`);
}
console.log(section);
process.exit(failed ? 1 : 0);
