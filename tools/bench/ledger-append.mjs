// One appending process for the ledger benchmark. Offers `rate` leaves per second (0: as fast as the
// ledger absorbs them) for `seconds`, in appends of 100 leaves, integrated under at most one signed
// head per `batchMs`; then prints {"leaves", "heads", "seconds", "p50", "p99"} on stdout: leaves and
// heads acknowledged in the steady-state window (from WARM_S to the end; the first batches only
// fill the pipeline), its length, and acknowledgement latency in ms. Rising latency means the
// offered rate is not sustained. Fixed seed: leaf i is SHA-256 of "<tag>-<i>".
// Usage: node bench/ledger-append.mjs <sqlite file | postgres URL> <tag> <seconds> [batchMs] [rate]
import { onNode24 } from '../lib/node24.mjs';
import { createHash } from 'node:crypto';
import { namesFor } from '@svc/core';
import { testKeys } from '@svc/core/testing';
import { Ledger, MemoryHighWater, PgStore, SqliteStore, nativeCrypto } from '../../packages/server/dist/internal.js';

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const [location, tag, secondsArg, batchArg, rateArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const rate = Number(rateArg ?? 0);
const K = testKeys('bench-2026');
const store = location.startsWith('postgres') ? await PgStore.open(location) : new SqliteStore(location);
const ledger = new Ledger({
  store,
  names: namesFor('svc'),
  log: 'svc-ledger',
  sthKey: K.sth,
  isPublished: () => true,
  highWater: new MemoryHighWater(),
  batchMs: Number(batchArg ?? 1000),
  maxBatch: 1_000_000,
  ...(nativeCrypto() ? { crypto: nativeCrypto() } : {}),
});
await ledger.init();
await ledger.audit.fullCheck();
let counter = 0;
const next = () => new Uint8Array(createHash('sha256').update(`${tag}-${counter++}`).digest());
const PER_APPEND = 100;
// Saturation keeps about two seconds of work queued; a fixed rate queues what the clock says.
const MAX_QUEUED = 200_000;
let queued = 0;
let acknowledged = 0;
const heads = new Set();
const latencies = [];
const pending = new Set();
const start = performance.now();
const end = start + seconds * 1000;
const WARM_S = Math.min(3, seconds / 3);
const warm = start + WARM_S * 1000;
let offered = 0;
// This process's CPU over the steady-state window (an entries-per-core figure for the mirror bench).
let cpuAtWarm = null;
while (performance.now() < end) {
  if (cpuAtWarm === null && performance.now() >= warm) cpuAtWarm = process.cpuUsage();
  const due = rate > 0 ? Math.min(rate * ((performance.now() - start) / 1000), offered + MAX_QUEUED) : offered + MAX_QUEUED - queued;
  while (offered + PER_APPEND <= due && queued < MAX_QUEUED) {
    const at = performance.now();
    queued += PER_APPEND;
    offered += PER_APPEND;
    const p = ledger.append(Array.from({ length: PER_APPEND }, next)).then((r) => {
      queued -= PER_APPEND;
      const now = performance.now();
      if (now >= warm && now <= end) {
        acknowledged += PER_APPEND;
        heads.add(r.head.id);
        latencies.push(now - at);
      }
      pending.delete(p);
    });
    pending.add(p);
  }
  await new Promise((r) => setTimeout(r, 2));
}
const elapsed = (Math.min(performance.now(), end) - warm) / 1000;
const cpu = process.cpuUsage(cpuAtWarm ?? undefined);
await Promise.allSettled(pending);
await ledger.close();
latencies.sort((a, b) => a - b);
const q = (x) => latencies[Math.min(latencies.length - 1, Math.floor(x * latencies.length))] ?? null;
process.stdout.write(
  `${JSON.stringify({ leaves: acknowledged, heads: heads.size, seconds: elapsed, cpuSeconds: (cpu.user + cpu.system) / 1e6, p50: q(0.5), p99: q(0.99) })}\n`,
);
process.exit(0);
