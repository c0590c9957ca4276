// Issuing benchmark (#43): signed, logged answers through the library (openIssuer) and through the
// private HTTP API of svc serve, as a rate per core used, against the raw cost of the signatures one
// bundle carries (the ML-DSA-87 receipt, the ML-DSA-87 and Falcon-1024 model-plane attestation),
// signed in a bare loop on one core in the same run. One signed head a second (the default batch);
// p50 and p99 latency; `svc issue` per answer beside them for contrast. Run on Node 24 (native
// ML-DSA) by bench/run.mjs; alone: `npm run bench:issuing`.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { namesFor } from '@svc/core';
import { sign, sha256, utf8 } from '@svc/core/primitives';
import { addToken, ensureKeys, Keyring, loadConfig, nativeCrypto, openIssuer } from '../../packages/server/dist/internal.js';
import { issuingServe, line, machine, percentiles } from './util.mjs';

const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
const quick = process.argv.includes('--quick');
const SECONDS = quick ? 4 : 10;
// Callers in flight: about the raw rate times the batch interval and a half, so one-second batches
// keep the issuer busy without a queue much longer than a batch.
const IN_FLIGHT = 128;

/** CPU seconds (user + system) of a process so far, from /proc (Linux), or of this one. */
function cpuSeconds(pid) {
  if (pid === undefined) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/**
 * Bundles a second a single core signs in a bare loop: the signatures of one bundle, nothing else.
 * Measured in slices between the issuing slices (this host's speed drifts by a third over a minute).
 */
function rawRate(ring, crypto, seconds) {
  const n = namesFor('svc');
  const random = (k) => new Uint8Array(randomBytes(k));
  const answer = ring.get('answer');
  const primary = ring.get('bridge-primary');
  const cosign = ring.get('bridge-cosign');
  const one = (i) => {
    const msg = sha256(utf8(`raw ${i}`));
    sign(answer, msg, n.contexts.answer, random, crypto);
    sign(primary, msg, n.contexts.bridge, random, crypto);
    sign(cosign, msg, n.contexts.bridge, random);
  };
  for (let i = 0; i < 20; i++) one(i);
  const t = performance.now();
  let count = 0;
  while (performance.now() - t < seconds * 1000) one(count++);
  return count / ((performance.now() - t) / 1000);
}

/** Keep IN_FLIGHT calls going for `seconds`; the rate, latencies and cores used. */
async function drive(call, cpu, seconds, perCall = 1, inFlight = IN_FLIGHT) {
  const latencies = [];
  const started = performance.now();
  const c0 = cpu();
  let done = 0;
  let stop = false;
  setTimeout(() => (stop = true), seconds * 1000);
  await Promise.all(
    Array.from({ length: inFlight }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const t = performance.now();
        await call(`bench ${w} ${i} ${Math.random()}`);
        latencies.push(performance.now() - t);
        done += perCall;
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  return { rate: done / wall, cores: (cpu() - c0) / wall, latencies };
}

/**
 * Issuing slices interleaved with raw slices: each issuing slice's rate per core used over the mean
 * of the raw slices either side of it; the median of those ratios, and the whole run's figures.
 */
async function measure(label, call, cpu, ring, crypto, perCall = 1, inFlight = IN_FLIGHT) {
  const rounds = quick ? 2 : 3;
  const slice = SECONDS / rounds;
  const raws = [rawRate(ring, crypto, 1.5)];
  const runs = [];
  for (let i = 0; i < rounds; i++) {
    runs.push(await drive(call, cpu, slice, perCall, inFlight));
    raws.push(rawRate(ring, crypto, 1.5));
  }
  const ratios = runs.map((r, i) => r.rate / Math.max(r.cores, 0.01) / ((raws[i] + raws[i + 1]) / 2)).sort((a, b) => a - b);
  const all = runs.flatMap((r) => r.latencies);
  const { p50, p99 } = percentiles(all);
  const rate = runs.reduce((a, r) => a + r.rate, 0) / runs.length;
  const cores = runs.reduce((a, r) => a + r.cores, 0) / runs.length;
  const raw = raws.reduce((a, b) => a + b, 0) / raws.length;
  line(`raw, beside ${label} (baseline)`, `${raw.toFixed(1)} bundles/s on one core (slices ${raws.map((r) => r.toFixed(0)).join(', ')})`);
  line(
    `${label}: answers/s, cores used, p50 / p99`,
    `${rate.toFixed(1)}/s on ${cores.toFixed(2)} cores, ${p50.toFixed(0)} ms / ${p99.toFixed(0)} ms`,
  );
  line(`${label}: rate per core used / raw signing rate`, ratios[Math.floor(ratios.length / 2)].toFixed(2), '>= 0.7');
}

export async function issuingBench() {
  console.log(`machine: ${machine()}`);
  const crypto = nativeCrypto();
  console.log(`signing: ${crypto ? 'node:crypto (native ML-DSA-87)' : 'noble (no native ML-DSA here)'}, Falcon-1024 with noble`);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-issuing-'));
  try {
    const env = { ...process.env, SVC_DATA_DIR: dir, SVC_LOG: '0', SVC_LEDGER_BATCH_SECONDS: '1' };
    const cfg = loadConfig(env);
    ensureKeys(cfg, () => {});
    const ring = Keyring.load(join(dir, 'keys')).ring;
    const issuer = await openIssuer({ dataDir: dir, batchSeconds: 1, env });
    await issuer.issue({ answer: 'warm-up' });
    await measure(
      'library (openIssuer, 1 head/s)',
      (answer) => issuer.issue({ answer }),
      () => cpuSeconds(),
      ring,
      crypto ?? undefined,
    );
    await issuer.close();

    // The private HTTP API of a svc serve process of its own (one process, one worker): its CPU is the server's.
    const token = addToken(join(dir, 'issue-tokens'), 'bench');
    const { child, port } = issuingServe(CLI, env);
    const url = `http://127.0.0.1:${port}/api/v1/issue`;
    const post = async (answer) => {
      const r = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ answer }),
      });
      if (r.status !== 200) throw new Error(`issuing API answered ${r.status}`);
      await r.arrayBuffer();
    };
    try {
      for (let i = 0; ; i++) {
        try {
          await post('warm-up http');
          break;
        } catch (e) {
          if (i > 300) throw e;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      await measure('HTTP API (svc serve, 1 process, 1 head/s)', post, () => cpuSeconds(child.pid), ring, crypto ?? undefined);
      // The batch form, 16 answers a request: a backend that gathers its answers pays HTTP once per 16.
      const batchUrl = `${url}/batch`;
      const postBatch = async (answer) => {
        const r = await fetch(batchUrl, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ answers: Array.from({ length: 16 }, (_, i) => ({ answer: `${answer} ${i}` })) }),
        });
        if (r.status !== 200) throw new Error(`issuing API answered ${r.status}`);
        await r.arrayBuffer();
      };
      await measure(
        'HTTP API, batches of 16 (svc serve, 1 head/s)',
        postBatch,
        () => cpuSeconds(child.pid),
        ring,
        crypto ?? undefined,
        16,
        8,
      );
    } finally {
      child.kill();
    }

    // For contrast: one process per answer.
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const r = spawnSync(process.execPath, [CLI, 'issue', '--answer', `svc issue ${i}`, '--data-dir', dir], { env, stdio: 'ignore' });
      if (r.status !== 0) throw new Error('svc issue failed');
      runs.push(performance.now() - t);
    }
    runs.sort((a, b) => a - b);
    line('svc issue, one process per answer (median of 3)', `${(1000 / runs[1]).toFixed(2)} answers/s (${runs[1].toFixed(0)} ms each)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await issuingBench();
  process.exit(0);
}
