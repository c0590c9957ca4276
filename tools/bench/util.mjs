// Benchmark helpers: timing loops, percentiles.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
export { machine } from '../lib/machine.mjs';

/** Median per-op milliseconds of `fn` over `rounds` rounds of `n` calls (sync or async). */
export async function perOp(fn, { n = 20, rounds = 7, warmup = 5 } = {}) {
  for (let i = 0; i < warmup; i++) await fn();
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) await fn();
    samples.push((performance.now() - t) / n);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/**
 * Interleaved comparison so drift affects both sides alike: returns median ms of a and b, and
 * `ratio`, the median of b/a over adjacent pairs (steadier than a ratio of medians on a noisy host).
 */
export async function compare(a, b, opts = {}) {
  const ra = [];
  const rb = [];
  const ratios = [];
  for (let i = 0; i < (opts.pairs ?? 5); i++) {
    const x = await perOp(a, { rounds: 3, ...opts });
    const y = await perOp(b, { rounds: 3, ...opts });
    ra.push(x);
    rb.push(y);
    ratios.push(y / x);
  }
  const med = (x) => x.sort((p, q) => p - q)[Math.floor(x.length / 2)];
  return { a: med(ra), b: med(rb), ratio: med(ratios) };
}

export function percentiles(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: q(0.5), p99: q(0.99) };
}

export function line(name, value, goal) {
  console.log(`${name.padEnd(64)} ${value}${goal ? `   (goal ${goal})` : ''}`);
  // npm run bench gathers every goal of the run, from every process it starts, for its closing table.
  if (goal && process.env.SVC_BENCH_GOALS)
    appendFileSync(process.env.SVC_BENCH_GOALS, `${JSON.stringify({ name: name.trim(), value, goal })}\n`);
}

/**
 * Whether `value` meets `goal`, for the forms the benches write: `<= 1.3`, `>= 10000`, `< 60 s`,
 * `p99 < 1 ms` (the last figure of "p50 ms / p99 ms"); null when the goal is not one of them.
 */
export function goalMet(value, goal) {
  const MS = { us: 0.001, ms: 1, s: 1000 };
  const g = /^(p99 )?(<=|>=|<|>)\s*([\d.,]+)\s*(us|ms|s)?\b/.exec(String(goal));
  if (!g) return null;
  const figures = [...String(value).matchAll(/(-?\d[\d,]*(?:\.\d+)?)\s*(us|ms|s)?\b/g)].map((m) => ({
    n: Number(m[1].replace(/,/g, '')),
    unit: m[2],
  }));
  if (figures.length === 0) return null;
  const f = g[1] ? figures[figures.length - 1] : figures[0];
  // Times compare in one unit: "30 ms" meets "< 1 s".
  const v = f.unit && g[4] ? (f.n * MS[f.unit]) / MS[g[4]] : f.n;
  const t = Number(g[3].replace(/,/g, ''));
  return g[2] === '<=' ? v <= t : g[2] === '>=' ? v >= t : g[2] === '<' ? v < t : v > t;
}

/** Times GET `url` every 20 ms until stopped: `stop()` resolves with the latencies (ms). */
export function sampleLatency(url) {
  const latencies = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t = performance.now();
      const r = await fetch(url);
      await r.arrayBuffer();
      latencies.push(performance.now() - t);
      await new Promise((res) => setTimeout(res, 20));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return latencies;
    },
  };
}

/**
 * `svc serve` in a process of its own for a bench of the issuing listener: one process, one worker,
 * no rate limits, on a random loopback port for SVC_ISSUE_LISTEN. Returns the child and the port.
 */
export function issuingServe(cli, env) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: {
      ...env,
      PORT: '0',
      SVC_PROCESSES: '1',
      SVC_WORKERS: '1',
      SVC_ISSUE_LISTEN: `127.0.0.1:${port}`,
      SVC_RATE_ISSUE: '0',
      SVC_CONNECTIONS_PER_IP: '0',
    },
    stdio: 'ignore',
  });
  return { child, port };
}

/** A loopback port free right now (for a process a bench starts, which must know its URL first). */
export async function freePort() {
  const { createServer } = await import('node:net');
  const s = createServer();
  await new Promise((ok) => s.listen(0, '127.0.0.1', ok));
  const p = s.address().port;
  await new Promise((ok) => s.close(ok));
  return p;
}
