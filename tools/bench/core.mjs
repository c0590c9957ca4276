// Core benchmarks: verifyBundle overhead over the raw ML-DSA-87 verify it needs, transcript of 200
// turns, records, and Merkle proof verification at 2^10, 2^20 and 2^30 leaves.
import { ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { verifyBundle } from '@svc/core';
import { fromHex, utf8 } from '@svc/core/primitives';
import { inclusionProof, consistencyProof, treeRoot, verifyInclusion, verifyConsistency, leafHash, nodeHash } from '@svc/core/merkle';
import { issueProof, issueTranscript, receiptMessage } from '@svc/core/issue';
import { buildRecord } from '@svc/core/record';
import { testKeys } from '@svc/core/testing';
import { compare, perOp, line } from './util.mjs';

export async function coreBench() {
  const K = testKeys('bench-2026');
  const bundle = issueProof(
    { answer: 'The quick brown fox jumps over the lazy dog. '.repeat(20), model: 'bench', ts: 1_767_225_600 },
    { receipt: K.answer },
  );
  const pk = fromHex(bundle.receiptKey.public_key_hex);
  const sig = fromHex(bundle.receipt.sig);
  const msg = receiptMessage(bundle.receipt);
  const ctx = utf8('svc-provenance-v1');
  const raw = () => {
    if (!ml_dsa87.verify(sig, msg, pk, { context: ctx })) throw new Error('raw verify failed');
  };
  const opts = { trustedKeys: K.trustedKeys };
  const full = async () => {
    const r = await verifyBundle(bundle, opts);
    if (!r.verdict.overallOk) throw new Error('bundle failed');
  };
  const { a: rawMs, b: fullMs } = await compare(raw, full, { n: 25, pairs: 7 });
  line('raw ML-DSA-87 verify (baseline)', `${rawMs.toFixed(3)} ms`);
  line('verifyBundle, plain answer bundle', `${fullMs.toFixed(3)} ms`);
  line('ratio verifyBundle / raw verify', (fullMs / rawMs).toFixed(3), '<= 1.05');

  const turns = Array.from({ length: 200 }, (_, i) => issueProof({ answer: `turn ${i}`, model: 'bench', ts: 1 }, { receipt: K.answer }));
  const transcript = issueTranscript(turns);
  const tMs = await perOp(
    async () => {
      if (!(await verifyBundle(transcript, opts)).verdict.overallOk) throw new Error('transcript failed');
    },
    { n: 1, rounds: 5, warmup: 1 },
  );
  line('transcript of 200 turns', `${tMs.toFixed(1)} ms`);
  line('ratio transcript / (200 x raw verify)', (tMs / (200 * rawMs)).toFixed(3), '<= 1.05');

  const buildMs = await perOp(() => buildRecord(bundle, { ...opts, generated: 1 }), { n: 10 });
  const record = buildRecord(bundle, { ...opts, generated: 1 });
  const reMs = await perOp(() => verifyBundle(record, opts), { n: 10 });
  line('record build / raw verify', (buildMs / rawMs).toFixed(3));
  line('record re-verify / raw verify', (reMs / rawMs).toFixed(3));

  // A tree whose leaves are all equal has one hash per level: a consistent reader at any size.
  const levels = [leafHash(new Uint8Array([1]))];
  for (let i = 1; i < 64; i++) levels.push(nodeHash(levels[i - 1], levels[i - 1]));
  const reader = { subtree: (level) => levels[level] };
  for (const exp of [10, 20, 30]) {
    const n = 2 ** exp;
    const idx = Math.floor(n / 3);
    const ip = inclusionProof(reader, idx, n);
    const root = treeRoot(reader, n);
    const m = Math.floor(n / 2) + 1;
    const cp = consistencyProof(reader, m, n);
    const r1 = treeRoot(reader, m);
    const incMs = await perOp(() => verifyInclusion(idx, n, levels[0], ip, root) || fail(), { n: 2000, rounds: 5 });
    const conMs = await perOp(() => verifyConsistency(m, n, r1, root, cp) || fail(), { n: 2000, rounds: 5 });
    line(`inclusion verify at 2^${exp} (ops/s)`, Math.round(1000 / incMs).toLocaleString('en'));
    line(`consistency verify at 2^${exp} (ops/s)`, Math.round(1000 / conMs).toLocaleString('en'));
  }
  return { rawMs };
}

function fail() {
  throw new Error('proof failed');
}
