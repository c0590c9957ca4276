#!/usr/bin/env node
// npm run bench [-- --quick]: ratios against baselines measured in the same run, fixed seeds.
import { onNode24 } from '../lib/node24.mjs';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goalMet, machine } from './util.mjs';
import { coreBench } from './core.mjs';

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const quick = process.argv.includes('--quick');
// Every goal printed by this process and the ones it starts, for the table at the end.
process.env.SVC_BENCH_GOALS = join(mkdtempSync(join(tmpdir(), 'svc-bench-')), 'goals.jsonl');
console.log(`machine: ${machine()}`);
console.log(`runtime: Node ${process.version} (${process.versions.v8} V8)`);
console.log('\n== core');
const { rawMs } = await coreBench();
console.log('\n== envelopes (JWS, COSE)');
const { envelopeBench } = await import('./envelope.mjs');
await envelopeBench();
console.log('\n== SCITT (receipts, registration)');
const { scittBench } = await import('./scitt.mjs');
await scittBench({ seconds: quick ? 6 : 10 });
const { serverBench } = await import('./server.mjs');
console.log('\n== server');
await serverBench(rawMs);
console.log('\n== connections (two processes, a connection per request)');
const { connectionsBench } = await import('./connections.mjs');
await connectionsBench({ seconds: quick ? 3 : 6 });
const { proofVerifyBench } = await import('./tlog.mjs');
console.log('\n== tlog-proof');
await proofVerifyBench();
const { ledgerBench } = await import('./ledger.mjs');
console.log('\n== ledger');
await ledgerBench({ quick });
// Issue 55: add-entries throughput of a mirror, beside the ledger's own append rate.
const { mirrorBench } = await import('./mirror.mjs');
console.log('\n== a mirror taking a log (add-entries)');
await mirrorBench({ entries: quick ? 100_000 : 1_000_000, seconds: quick ? 8 : 15 });
if (!quick) {
  // Issue 56: start, svc issue and the background check on a log of 10^6 leaves (10^7 with --large)
  // against an empty one, on SQLite and PostgreSQL.
  const { logStartBench } = await import('./log-start.mjs');
  console.log('\n== a log that grows for years: start and the background check');
  await logStartBench({ sizes: process.argv.includes('--large') ? [1_000_000, 10_000_000] : [1_000_000] });
}

// Node 24: the native backend (node:crypto), then the packed library in every runtime.
const { spawnSync } = await import('node:child_process');
const { ensureNode24, ensureNode26 } = await import('../lib/node24.mjs');
const node24 = ensureNode24();
if (node24) {
  console.log('\n== Node 24');
  spawnSync(node24, ['--no-warnings', new URL('./native.mjs', import.meta.url).pathname, ...(quick ? ['--quick'] : [])], {
    stdio: 'inherit',
  });
  console.log('\n== envelopes on Node 24 (noble and node:crypto)');
  spawnSync(node24, ['--no-warnings', new URL('./envelope.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  // Issuing runs where svc serve runs: native ML-DSA-87 on Node 24.
  console.log('\n== issuing (Node 24): library and private HTTP API against the raw signatures of a bundle');
  spawnSync(node24, ['--no-warnings', new URL('./issuing.mjs', import.meta.url).pathname, ...(quick ? ['--quick'] : [])], {
    stdio: 'inherit',
  });
  console.log('\n== the OpenAI-compatible front (Node 24): 50 concurrent streams, added latency');
  spawnSync(node24, ['--no-warnings', new URL('./front.mjs', import.meta.url).pathname, ...(quick ? ['--quick'] : [])], {
    stdio: 'inherit',
  });
  // Witnesses run where svc serve runs (Node 24: OpenSSL's ML-DSA-44 signs their cosignatures).
  console.log('\n== witnessing (Node 24)');
  spawnSync(node24, ['--no-warnings', new URL('./witness.mjs', import.meta.url).pathname], {
    stdio: 'inherit',
  });
} else {
  console.log('\nNode 24 is not available here: native figures skipped');
  console.log('\n== the OpenAI-compatible front (this Node, noble signing): 50 concurrent streams, added latency');
  const { frontBench } = await import('./front.mjs');
  await frontBench({ quick });
}
// verifyBundle with default options against one raw WebCrypto verify, on each Node with WebCrypto ML-DSA.
console.log('\n== WebCrypto, default options (Node 24 and 26)');
for (const node of [node24, ensureNode26()]) {
  if (node) spawnSync(node, ['--no-warnings', new URL('./webcrypto.mjs', import.meta.url).pathname], { stdio: 'inherit' });
}
console.log('\n== WebCrypto and noble per runtime (packed tarball)');
spawnSync(process.execPath, [new URL('../scripts/runtime-matrix.mjs', import.meta.url).pathname], { stdio: 'inherit' });

// One table with every goal of this run, each beside its measured figure, on the machine above.
console.log(`\n== every goal of this run (${machine()})`);
const goals = readFileSync(process.env.SVC_BENCH_GOALS, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
console.log('| what | measured | goal | met |\n|---|---|---|---|');
for (const g of goals) {
  const met = goalMet(g.value, g.goal);
  console.log(`| ${g.name} | ${g.value} | ${g.goal} | ${met === null ? 'see above' : met ? 'yes' : '**no**'} |`);
}
