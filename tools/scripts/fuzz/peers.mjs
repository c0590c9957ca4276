// The peers campaign (#30): every client the server and the CLI point at someone else's service
// (a tile source, a keys URL, a policy witness, a council seat) against one hostile peer that
// answers each request its own way: endless, dripping, oversized, truncated, reset, silent,
// redirecting in a loop, a gzip bomb, huge headers, random bytes under random statuses. Beside it,
// overlapping static exports of a growing log into one folder, each stalled at random. Checked:
// every call ends within its deadline (plus slack) with an answer within its cap or a typed
// refusal, never an untyped throw or an unhandled rejection; the peer never got to send much past
// the cap before the client hung up; the memory of this process stays bounded; and after every
// round of exports the folder's checkpoint is the newest one exported and its tiles hash to it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { namesFor } from '@svc/core';
import { sha256, utf8 } from '@svc/core/primitives';
import { MemoryTree, treeRoot } from '@svc/core/merkle';
import { prng } from '@svc/core/arbitraries';
import {
  formatCheckpoint,
  logKeygen,
  MAX_NOTE_SIGNATURES,
  noteSigner,
  parseCheckpoint,
  parseNote,
  parsePolicy,
  signNote,
  TileReader,
} from '@svc/core/tlog';

const internal = new URL('../../../packages/server/dist/internal.js', import.meta.url).href;
/** Deadlines given to each client here: short, so that the slowest families end quickly. */
const DEADLINE_MS = 1_500;
/** What a call may take past its deadline before it counts as a hang. */
const SLACK_MS = 3_000;
/** What a peer may have pushed into the sockets past the cap before the client hung up (kernel buffers). */
const SENT_SLACK = 16 * 1024 * 1024;

export const BEHAVIOURS = [
  'endless',
  'drip',
  'oversized',
  'truncated',
  'reset',
  'silent',
  'redirect-loop',
  'gzip-bomb',
  'huge-headers',
  'random',
  'plausible',
];

/** The hostile peer: a behaviour per request, chosen by the client through the path (/b/<name>/...). */
function hostilePeer(rand) {
  const sent = new Map();
  let seq = 0;
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
  const server = createServer((req, res) => {
    const [, , name = 'random'] = (req.url ?? '').split('/');
    const id = `${req.url ?? ''}#${++seq}`;
    sent.set(id, 0);
    const count = (n) => sent.set(id, (sent.get(id) ?? 0) + n);
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    req.resume();
    switch (name) {
      case 'endless': {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const pump = () => {
          while (!res.destroyed) {
            count(chunk.length);
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
        };
        pump();
        return;
      }
      case 'drip': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : (count(1), res.write('a'))), 50);
        res.on('close', () => clearInterval(t));
        return;
      }
      case 'oversized': {
        const n = 16 * 1024 + Math.floor(rand() * 4 * 1024 * 1024);
        count(n);
        res.writeHead(200, { 'content-length': String(n) });
        res.end(Buffer.alloc(n, 0x30));
        return;
      }
      case 'truncated':
        res.writeHead(200, { 'content-length': '50000' });
        res.write('{"keys":[');
        setTimeout(() => res.destroy(), Math.floor(rand() * 300));
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'silent':
        return; // never answers; the client's deadline ends it
      case 'redirect-loop':
        res.writeHead(302, { location: req.url });
        res.end();
        return;
      case 'gzip-bomb':
        count(bomb.length);
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' });
        res.end(bomb);
        return;
      case 'huge-headers': {
        const h = {};
        for (let i = 0; i < 64; i++) h[`x-h${i}`] = 'v'.repeat(1024);
        res.writeHead(200, h);
        res.end('{}');
        return;
      }
      case 'plausible': {
        // The right shape, wrong content: a near-valid answer of each kind.
        const bodies = ['{"keys":[]}', '{"choices":[{"message":{"content":"ready"}}]}', '— w1.example AAAA\n', '\n', '7\n'];
        const status = [200, 200, 409, 422, 200][Math.floor(rand() * 5)];
        res.writeHead(status);
        res.end(bodies[Math.floor(rand() * bodies.length)]);
        return;
      }
      default: {
        const n = Math.floor(rand() * 20_000);
        const body = Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
        count(n);
        res.writeHead([200, 201, 204, 301, 404, 409, 422, 500, 503][Math.floor(rand() * 9)]);
        res.end(body);
      }
    }
  });
  server.on('clientError', (_e, s) => s.destroy());
  return { server, sent };
}

/** One note of a log of `size` leaves, and a policy naming `url` as its only witness (quorum 1). */
async function witnessSetup(url) {
  const seed = (n) => sha256(utf8(`peers ${n}`));
  const origin = 'example.com/peers-log';
  const signer = noteSigner(origin, logKeygen('ed25519', seed(0)));
  const witness = noteSigner('w1.example', logKeygen('cosignature/v1', seed(1)));
  const t = new MemoryTree();
  for (let i = 0; i < 5; i++) t.appendData(seed(10 + i));
  const note = signNote(formatCheckpoint({ origin, size: 5, root: treeRoot(t, 5), extensions: [] }), [signer]);
  const policy = parsePolicy([`log ${signer.vkey}`, `witness w1 ${witness.vkey} ${url}`, 'quorum w1'].join('\n'));
  return { note, policy };
}

/** Each client, by name: one call against a URL of the peer; resolves with what it read, or throws. */
function clients(m, base) {
  return {
    keys: (name) =>
      m
        .fetchJson(`${base}/b/${name}/api/provenance/pubkey`, undefined, DEADLINE_MS)
        .then((r) => ({ bytes: JSON.stringify(r.body).length, cap: m.PEER_CAPS.json })),
    tile: (name) =>
      m
        .tileFetcher(
          `${base}/b/${name}/log/`,
          DEADLINE_MS,
        )('tile/0/000')
        .then((b) => ({ bytes: b.length, cap: m.PEER_CAPS.tile })),
    checkpoint: (name) =>
      m
        .tileFetcher(
          `${base}/b/${name}/log/`,
          DEADLINE_MS,
        )('checkpoint')
        .then((b) => ({ bytes: b.length, cap: m.PEER_CAPS.checkpoint })),
    witness: async (name) => {
      const { note, policy } = await witnessSetup(`${base}/b/${name}/w`);
      const w = new m.Witnessing({ checkpoint: async () => note, consistency: async () => ({ proof: [] }) }, policy, {
        log: () => {},
        timeoutMs: DEADLINE_MS,
      });
      await w.round();
      const published = w.publishedNote();
      // A hostile witness never gets a line published: it cannot sign for w1.
      if (published !== null && parseNote(published).signatures.length > MAX_NOTE_SIGNATURES)
        throw new Error('note over the signature cap');
      if (published !== null) return { bytes: 1, cap: 0, published: true };
      return { bytes: 0, cap: m.PEER_CAPS.witness };
    },
    council: async (name) => {
      let t = 0;
      const probe = new m.CouncilProbe(
        () => ({ timeout_ms: DEADLINE_MS, seats: [{ id: 's', label: 'S', model: 'm', endpoint: `${base}/b/${name}/v1`, key_env: 'K' }] }),
        { K: 'k' },
        () => {},
        () => (t += 1e9),
      );
      const h = await probe.health();
      return { bytes: h ? 1 : 0, cap: 1 };
    },
  };
}

/** Overlapping exports of a log growing by random batches, each run stalled at random; checks each round. */
async function exportRounds(m, rand, going, findings, progress) {
  let rounds = 0;
  let runs = 0;
  let leaves = 0;
  // A fresh log and folder every so often: the family is overlap, not size (a big log would only
  // make each export hold the event loop longer).
  while (going()) {
    const r = await exportLog(m, rand, going, findings, rounds, progress);
    rounds += r.rounds;
    runs += r.runs;
    leaves += r.size;
  }
  return { rounds, runs, size: leaves };
}

async function exportLog(m, rand, going, findings, before, progress) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fuzz-exports-'));
  const cfg = m.loadConfig({ SVC_DATA_DIR: join(dir, 'data'), SVC_LOG: '0' });
  const ledger = await m.openLedger(
    cfg,
    namesFor('svc'),
    m.ensureKeys(cfg, () => {}),
    () => {},
    { background: false, batchMs: 0 },
  );
  const out = join(dir, 'mirror');
  let rounds = 0;
  let runs = 0;
  let n = 0;
  try {
    while (going() && n < 20_000) {
      rounds++;
      const pending = [];
      let newest = 0;
      for (let k = 1 + Math.floor(rand() * 4); k > 0; k--) {
        const batch = 1 + Math.floor(rand() * 300);
        await ledger.append(Array.from({ length: batch }, () => sha256(utf8(`leaf ${n++}`))));
        const cp = await ledger.checkpoint();
        newest = Math.max(newest, parseCheckpoint(parseNote(cp).text).size);
        const stall = Math.floor(rand() * 40);
        const slow = {
          kind: ledger.store.kind,
          nodes: async (...a) => (await new Promise((r) => setTimeout(r, stall)), ledger.store.nodes(...a)),
          leaves: async (...a) => (await new Promise((r) => setTimeout(r, stall)), ledger.store.leaves(...a)),
        };
        runs++;
        pending.push(m.exportTiles(slow, cp, out));
      }
      const settled = await Promise.allSettled(pending);
      for (const s of settled)
        if (s.status === 'rejected') findings.push({ part: 'exports', round: before + rounds, error: String(s.reason) });
      const kept = parseCheckpoint(parseNote(readFileSync(join(out, 'checkpoint'), 'utf8')).text);
      if (kept.size !== newest) findings.push({ part: 'exports', round: before + rounds, kept: kept.size, newest });
      try {
        const reader = new TileReader(m.tileFetcher(out), kept);
        await reader.checkRoot();
        await reader.inclusionProof(Math.floor(rand() * kept.size));
      } catch (e) {
        findings.push({ part: 'exports', round: before + rounds, tiles: String(e) });
      }
      progress.rounds++;
    }
    return { rounds, runs, size: n };
  } finally {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs until `until`: `concurrency` loops of peer calls beside the export rounds; with
 * `atLeastRounds`, on past it until that many export rounds are done (or `limit`), so a slice on a
 * loaded machine does the work it checks rather than fewer rounds in the same seconds. Resolves
 * with the counts and the findings (empty when nothing was wrong).
 */
export async function peersCampaign({ until, seed, concurrency = 8, atLeastRounds = 0, limit = until }) {
  const progress = { rounds: 0 };
  const going = () => Date.now() < until || (progress.rounds < atLeastRounds && Date.now() < limit);
  const m = await import(internal);
  const rand = prng(seed);
  const { server, sent } = hostilePeer(prng(seed ^ 0x9e3779b9));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const findings = [];
  const outcomes = {};
  const unhandled = (e) => findings.push({ part: 'peers', unhandled: String(e) });
  process.on('unhandledRejection', unhandled);
  const rssStart = process.memoryUsage().rss;
  let rssMax = rssStart;
  // Time the event loop was held (by the exports' synchronous SQLite reads, or a busy machine): a
  // client's deadline timer cannot fire meanwhile, so a call's time less this is what it is judged by.
  let held = 0;
  let tick = performance.now();
  const sampler = setInterval(() => {
    const now = performance.now();
    held += Math.max(0, now - tick - 50);
    tick = now;
    rssMax = Math.max(rssMax, process.memoryUsage().rss);
  }, 50);
  const calls = clients(m, base);
  let count = 0;
  const loop = async () => {
    while (going()) {
      const client = Object.keys(calls)[Math.floor(rand() * 5)];
      const behaviour = BEHAVIOURS[Math.floor(rand() * BEHAVIOURS.length)];
      const started = Date.now();
      const heldBefore = held;
      const key = `${client}/${behaviour}`;
      count++;
      let outcome;
      try {
        const r = await calls[client](behaviour);
        if (r.published) findings.push({ part: 'peers', client, behaviour, published: 'a line the hostile witness cannot have signed' });
        else if (r.bytes > r.cap) findings.push({ part: 'peers', client, behaviour, bytes: r.bytes, cap: r.cap });
        outcome = 'answer';
      } catch (e) {
        // The clients' refusals are typed: the CLI's (exit code 2) or the peer layer's.
        if (!(e instanceof m.CliError || e instanceof m.PeerAnswerTooLarge))
          findings.push({ part: 'peers', client, behaviour, untyped: String(e) });
        outcome = 'refused';
      }
      const ms = Date.now() - started;
      const loopHeld = held - heldBefore;
      if (ms - loopHeld > DEADLINE_MS + SLACK_MS) findings.push({ part: 'peers', client, behaviour, ms, loopHeld: Math.round(loopHeld) });
      outcomes[key] ??= { answer: 0, refused: 0 };
      outcomes[key][outcome]++;
    }
  };
  let exports;
  try {
    [exports] = await Promise.all([exportRounds(m, rand, going, findings, progress), ...Array.from({ length: concurrency }, loop)]);
  } finally {
    clearInterval(sampler);
    process.off('unhandledRejection', unhandled);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  const caps = Object.values(m.PEER_CAPS);
  const most = Math.max(...caps);
  for (const [url, bytes] of sent) {
    if (url.includes('/gzip-bomb/')) continue; // compressed size; what counts is what was inflated and kept
    if (bytes > most + SENT_SLACK) findings.push({ part: 'peers', url, sentBeforeHangUp: bytes });
  }
  const grewMb = (rssMax - rssStart) / 2 ** 20;
  if (grewMb > 512) findings.push({ part: 'peers', rssGrewMb: grewMb });
  return { calls: count, outcomes, exports, grewMb, findings };
}
