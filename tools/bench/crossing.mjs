// Where a proof's time goes when it crosses to the storage process (#35): the channel's own floor
// (Node's JSON IPC and binary frames on a socket pair, an echo at once), the same proofs in process
// (the baseline), through `ProcessStore` as `svc serve` reads them, and a proof split into its legs
// by stamps taken on both sides: to the child, the proof inside it, and back. `--spin` keeps the
// parent's event loop busy while it waits, to show what an idle CPU's wake-up costs.
// The two processes' stamps (timeOrigin + now) can differ by a few hundredths of a millisecond, so a
// leg's p50 near zero may print slightly negative; the round trip is timed on one clock.
// Run: npm run build && node tools/bench/crossing.mjs [--leaves 1000000]
import { onNode24 } from '../lib/node24.mjs';
import { fork, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProcessStore, SqliteStore } from '../../packages/server/dist/internal.js';
import { bulkSqlite } from './ledger.mjs';
import { line, machine, percentiles } from './util.mjs';

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const CHILD = fileURLToPath(new URL('./crossing/child.mjs', import.meta.url));
const arg = (name, d) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d);
const N = arg('leaves', 1_000_000);
const CALLS = 3000;
const WARM = 300;
const stamp = () => performance.timeOrigin + performance.now();
const data = (i) => createHash('sha256').update(`leaf-${i}`).digest();
const show = (p) => `${p.p50.toFixed(3)} ms / ${p.p99.toFixed(3)} ms`;

/** Fixed-seed indexes, the same sequence for every variant. */
function* indexes() {
  let seed = 42;
  for (let i = 0; i < CALLS; i++) yield Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * N);
}

async function timed(call) {
  const out = [];
  let k = 0;
  for (const i of indexes()) {
    const t = performance.now();
    await call(i);
    if (k++ >= WARM) out.push(performance.now() - t);
  }
  return percentiles(out);
}

async function ipcEcho() {
  const c = fork(CHILD, ['echo'], { serialization: 'json', execArgv: [] });
  let answer = () => {};
  c.on('message', (m) => answer(m));
  await new Promise((r) => (answer = r));
  const x = 'ab'.repeat(700); // about a proof's JSON
  const p = await timed((id) => new Promise((r) => ((answer = r), c.send({ id, x }))));
  c.kill();
  return p;
}

async function framesEcho() {
  const c = spawn(process.execPath, [CHILD, 'frames'], { stdio: ['ignore', 'inherit', 'inherit', 'pipe'] });
  const s = c.stdio[3];
  let answer = () => {};
  let buf = Buffer.alloc(0);
  s.on('data', (ch) => {
    buf = buf.length ? Buffer.concat([buf, ch]) : ch;
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32LE(0)) {
      buf = buf.subarray(4 + buf.readUInt32LE(0));
      answer();
    }
  });
  const frame = Buffer.alloc(4 + 704, 7);
  frame.writeUInt32LE(704, 0);
  const p = await timed(() => new Promise((r) => ((answer = r), s.write(frame))));
  c.kill();
  return p;
}

async function viaStore(store) {
  const p = await timed((i) => store.proveInclusion({ data: new Uint8Array(data(i)) }, undefined, true));
  await store.close();
  return p;
}

/** Each proof split by stamps from both processes (one clock: the machine's). */
async function legs(spin) {
  const c = fork(CHILD, ['prove', FILE], { serialization: 'json', execArgv: [] });
  let answer = () => {};
  c.on('message', (m) => answer(m));
  await new Promise((r) => (answer = r));
  const to = [];
  const proof = [];
  const back = [];
  const all = [];
  let k = 0;
  for (const i of indexes()) {
    const hex = data(i).toString('hex');
    let waiting = true;
    if (spin) {
      const turn = () => waiting && setImmediate(turn);
      turn();
    }
    const sent = stamp();
    const m = await new Promise((r) => ((answer = r), c.send({ hex })));
    const got = stamp();
    waiting = false;
    if (k++ < WARM) continue;
    to.push(m.arrived - sent);
    proof.push(m.ended - m.began);
    back.push(got - m.ended);
    all.push(got - sent);
  }
  c.kill();
  return { to: percentiles(to), proof: percentiles(proof), back: percentiles(back), all: percentiles(all) };
}

const dir = mkdtempSync(join(tmpdir(), 'svc-crossing-'));
const FILE = join(dir, 'proofs.sqlite');
try {
  console.log(machine());
  // The floors first: building the store leaves the disk writing back for a while.
  line('channel floor: JSON IPC echo, p50 / p99', show(await ipcEcho()));
  line('channel floor: binary frames on a socket pair, p50 / p99', show(await framesEcho()));
  bulkSqlite(FILE, N);
  await new SqliteStore(FILE).close(); // builds the lookup indexes
  line(`inclusion at ${N.toExponential(0)} in process, p50 / p99`, show(await viaStore(new SqliteStore(FILE))));
  line(
    `inclusion at ${N.toExponential(0)} through ProcessStore, p50 / p99`,
    show(await viaStore(await ProcessStore.open(FILE))),
    'p99 < 1 ms',
  );
  for (const spin of [false, true]) {
    const l = await legs(spin);
    const who = spin ? 'parent spinning' : 'parent idle';
    line(`  ${who}: to the child, p50 / p99`, show(l.to));
    line(`  ${who}: the proof inside the child, p50 / p99`, show(l.proof));
    line(`  ${who}: back (send, wake, parse), p50 / p99`, show(l.back));
    line(`  ${who}: the whole round trip, p50 / p99`, show(l.all));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
