// One appending process for the ledger benchmark: appends 32-byte leaves as fast as the ledger
// absorbs them for `seconds`, integrated in batches under one signed head per `batchMs`, then
// prints {"leaves": acknowledged, "heads": heads it signed, "seconds": elapsed} on stdout.
// Usage: node bench/ledger-append.mjs <sqlite file | postgres URL> <tag> <seconds> [batchMs]
import { createHash } from 'node:crypto';
import { namesFor } from '@svc/core';
import { testKeys } from '@svc/core/testing';
import { Ledger, MemoryWitness, PgStore, SqliteStore, nativeCrypto } from '../packages/server/dist/internal.js';

const [location, tag, secondsArg, batchArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const K = testKeys('bench-2026');
const store = location.startsWith('postgres') ? await PgStore.open(location) : new SqliteStore(location);
const ledger = new Ledger({
  store,
  names: namesFor('svc'),
  log: 'svc-ledger',
  sthKey: K.sth,
  isPublished: () => true,
  witness: new MemoryWitness(),
  batchMs: Number(batchArg ?? 1000),
  ...(nativeCrypto() ? { crypto: nativeCrypto() } : {}),
});
await ledger.init();
await ledger.audit.fullCheck();
// Fixed-seed leaves: SHA-256 of tag and counter.
let counter = 0;
const next = () => new Uint8Array(createHash('sha256').update(`${tag}-${counter++}`).digest());
const PER_APPEND = 100;
const MAX_IN_FLIGHT = 2_000; // appends waiting for their batch: 200,000 leaves
let acknowledged = 0;
const heads = new Set();
const inFlight = new Set();
const start = performance.now();
const end = start + seconds * 1000;
while (performance.now() < end) {
  if (inFlight.size >= MAX_IN_FLIGHT) {
    await Promise.race(inFlight);
    continue;
  }
  const p = ledger.append(Array.from({ length: PER_APPEND }, next)).then((r) => {
    acknowledged += PER_APPEND;
    heads.add(r.head.id);
    inFlight.delete(p);
  });
  inFlight.add(p);
  // Let timers and I/O run between submissions, as a server handling requests would.
  if (inFlight.size % 50 === 0) await new Promise((r) => setImmediate(r));
}
// Only what was acknowledged inside the window counts.
const elapsed = (performance.now() - start) / 1000;
const counted = acknowledged;
const countedHeads = heads.size;
await Promise.allSettled(inFlight);
await ledger.close();
process.stdout.write(`${JSON.stringify({ leaves: counted, heads: countedHeads, seconds: elapsed })}\n`);
process.exit(0);
