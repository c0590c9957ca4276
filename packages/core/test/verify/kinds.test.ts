import { describe, expect, it } from 'vitest';
import { verifyBundle } from '../../src/dispatch.js';
import { detectKind } from '../../src/detect.js';
import { issueConsistency, issueExport, issueProof, issueRun, issueTranscript, signTreeHead } from '../../src/issue/bundles.js';
import { MemoryTree, consistencyProof, treeRoot } from '../../src/merkle/index.js';
import { toHex } from '../../src/encoding/bytes.js';
import { K, clone, expectSvcError, flipHex, trusted, verdictOf } from '../helpers.js';
import type { ReceiptEnvelope } from '../../src/issue/receipt.js';
import type { ReceiptKey } from '../../src/wire/keys.js';

const proof = (answer: string) => issueProof({ answer, model: 'm', ts: 1_700_000_000 }, { receipt: K.answer });
const run = {
  id: 'run-1',
  goal: 'Summarise the quarterly report',
  steps: [
    { i: 0, action: 'fetch', output_sha256: 'aa'.repeat(32), verify: 'schema', credits: 3 },
    { i: 1, action: 'summarise', output_sha256: 'bb'.repeat(32), verify: 'human', credits: 5 },
  ],
  status: 'done',
  budgetCredits: 10,
  spentCredits: 8,
};
const runBundle = issueRun(run, { model: 'autopilot', ts: 1_700_000_000, created: 1_700_000_002 }, { receipt: K.autopilot });
const conversations = [
  {
    id: 'c1',
    title: 'hello',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello ✓' },
    ],
  },
  { id: 'c2', messages: [{ role: 'user', content: 'bye', ts: 5 }] },
];
const exportArchive = issueExport(conversations, { model: 'export', ts: 1_700_000_000, created: 1_700_000_003 }, { receipt: K.export });

const tree = new MemoryTree();
for (let i = 0; i < 10; i++) tree.appendData(new Uint8Array(32).fill(i));
const head = (size: number, timestamp: number) =>
  signTreeHead({ log: 'svc-ledger', tree_size: size, root_hash: toHex(treeRoot(tree, size)), timestamp }, K.sth);
const cons = (a: number, b: number, ta = 1_700_000_000_000, tb = 1_700_000_100_000) =>
  issueConsistency(head(a, ta), head(b, tb), consistencyProof(tree, a, b));

describe('TranscriptBundle (V2)', () => {
  const t = issueTranscript([proof('one'), proof('two'), proof('three')], { title: 'chat' });

  it('verifies every turn and reports each verdict', async () => {
    const r = await verifyBundle(t, trusted);
    const v = verdictOf(r, 'transcript');
    expect(r.kind).toBe('svc-transcript');
    expect(v.overallOk).toBe(true);
    expect(v.turns).toHaveLength(3);
    expect(v.turns.map((x: any) => x.index)).toEqual([0, 1, 2]);
    expect(v.turns.every((x: any) => x.verdict.overallOk)).toBe(true);
    expect(r.signerRecognized).toBe(true);
  });

  it('one bad turn fails the transcript', async () => {
    const x = clone(t) as any;
    x.turns[1].answer = 'TWO';
    const v = verdictOf(await verifyBundle(x, trusted), 'transcript');
    expect(v.overallOk).toBe(false);
    expect(v.turns[1]!.verdict.overallOk).toBe(false);
    expect(v.turns[0]!.verdict.overallOk).toBe(true);
  });

  it('200 turns are accepted; 201 are refused with 422', async () => {
    const one = proof('same');
    const ok = await verifyBundle({ kind: 'svc-transcript', turns: Array(200).fill(one) });
    expect(verdictOf(ok, 'transcript').turns).toHaveLength(200);
    await expectSvcError(verifyBundle({ kind: 'svc-transcript', turns: Array(201).fill(one) }), 'too_many_turns', 422);
  });

  it('a turn naming another kind fails; a turn without kind is an answer turn', async () => {
    const x = clone(t) as any;
    x.turns[0].kind = 'svc-autopilot-run';
    expect((await verifyBundle(x, trusted)).verdict.overallOk).toBe(false);
    const y = clone(t) as any;
    delete y.turns[0].kind;
    expect((await verifyBundle(y, trusted)).verdict.overallOk).toBe(true);
  });

  it('empty or malformed turns never pass', async () => {
    for (const turns of [[], 'x', null, [1, 'a']]) {
      const r = await verifyBundle({ kind: 'svc-transcript', turns }, trusted);
      expect(r.verdict.overallOk).toBe(false);
    }
  });
});

describe('RunProofBundle (V3)', () => {
  it('verifies the whole run with budget accounting', async () => {
    const r = await verifyBundle(runBundle, trusted);
    expect(r.kind).toBe('svc-autopilot-run');
    expect(r.created).toBe(1_700_000_002);
    const v = verdictOf(r, 'run');
    expect(v.overallOk).toBe(true);
    expect(v.run).toEqual({ hashOk: true, steps: 2, budgetOk: true });
    expect(r.signerRecognized).toBe(true);
  });

  it('any change to goal, a step hash or a method breaks the run hash', async () => {
    for (const mutate of [
      (x: any) => (x.run.goal += '!'),
      (x: any) => (x.run.steps[0].output_sha256 = 'cc'.repeat(32)),
      (x: any) => (x.run.steps[1].verify = 'none'),
    ]) {
      const x = clone(runBundle);
      mutate(x);
      const v = verdictOf(await verifyBundle(x, trusted), 'run');
      expect(v.run.hashOk).toBe(false);
      expect(v.overallOk).toBe(false);
    }
  });

  it('a signed but inconsistent budget fails', async () => {
    const over = issueRun({ ...run, budgetCredits: 5 }, { model: 'a', ts: 1 }, { receipt: K.autopilot });
    const mismatch = issueRun({ ...run, spentCredits: 9 }, { model: 'a', ts: 1 }, { receipt: K.autopilot });
    for (const b of [over, mismatch]) {
      const v = verdictOf(await verifyBundle(b, trusted), 'run');
      expect(v.run.hashOk).toBe(true);
      expect(v.run.budgetOk).toBe(false);
      expect(v.overallOk).toBe(false);
    }
  });
});

describe('ExportArchive', () => {
  it('verifies manifest, payload and counts under the pinned export context', async () => {
    const r = await verifyBundle(exportArchive, trusted);
    expect(r.kind).toBe('svc-export');
    expect(r.created).toBe(1_700_000_003);
    expect(verdictOf(r, 'export').export).toEqual({ manifestOk: true, payloadOk: true, countsOk: true });
    expect(r.verdict.overallOk).toBe(true);
    expect(r.signerRecognized).toBe(true);
  });

  it('proof.context is display only', async () => {
    const x = clone(exportArchive);
    x.proof.context = 'svc-provenance-v1';
    expect((await verifyBundle(x, trusted)).verdict.overallOk).toBe(true);
  });

  it('a changed message, a dropped conversation or a wrong count fails', async () => {
    const a = clone(exportArchive) as any;
    a.conversations[0].messages[1].content = 'changed';
    expect(verdictOf(await verifyBundle(a, trusted), 'export').export.payloadOk).toBe(false);
    const b = clone(exportArchive);
    b.conversations.pop();
    expect((await verifyBundle(b, trusted)).verdict.overallOk).toBe(false);
    const c = clone(exportArchive);
    c.count = 7;
    expect(verdictOf(await verifyBundle(c, trusted), 'export').export.countsOk).toBe(false);
  });

  it('a non-canonical manifest spelling is refused even if it parses the same', async () => {
    const x = clone(exportArchive);
    x.proof.manifest = x.proof.manifest.replace('{', '{ ');
    expect(verdictOf(await verifyBundle(x, trusted), 'export').export.manifestOk).toBe(false);
  });
});

describe('SthBundle (V10) and ConsistencyBundle (V9)', () => {
  it('a bare signed tree head verifies and reports its body', async () => {
    const h = head(7, 1_700_000_000_999);
    const r = await verifyBundle(h, trusted);
    expect(r.kind).toBe('svc-sth');
    expect(r.verdict.overallOk).toBe(true);
    expect(verdictOf(r, 'sth').sth).toEqual({
      bodyOk: true,
      log: 'svc-ledger',
      treeSize: 7,
      rootHash: toHex(treeRoot(tree, 7)),
      timestamp: 1_700_000_000_999,
    });
    expect(r.signerRecognized).toBe(true);
  });

  it('a ledger wrapper with a nested signed_tree_head is refused with 422', async () => {
    const h = head(7, 1);
    await expectSvcError(verifyBundle({ enabled: true, tree_size: 7, signed_tree_head: h }), 'sth_wrapper', 422);
    await expectSvcError(verifyBundle({ ...h, signed_tree_head: h }), 'sth_wrapper', 422);
  });

  it('a changed body or receipt restatement fails', async () => {
    const h = head(7, 1_700_000_000_999);
    const a = clone(h);
    a.signed = a.signed.replace('"tree_size":7', '"tree_size":8');
    expect((await verifyBundle(a, trusted)).verdict.overallOk).toBe(false);
    const b = clone(h);
    b.receipt.ts += 1;
    expect((await verifyBundle(b, trusted)).verdict.overallOk).toBe(false);
  });

  it('a consistency bundle verifies; sth_withheld beside it never changes the verdict', async () => {
    const c = cons(3, 10);
    const r = await verifyBundle(c, trusted);
    expect(r.kind).toBe('svc-consistency');
    const v = verdictOf(r, 'consistency');
    expect(v.overallOk).toBe(true);
    expect(v.timestampOrderOk).toBe(true);
    expect(v.consistency.proofOk).toBe(true);
    expect(v.consistency.old.treeSize).toBe(3);
    expect(r.signerRecognized).toBe(true);
    for (const sth_withheld of ['rollback', 'fork', 'unverifiable']) {
      expect((await verifyBundle({ ...c, sth_withheld }, trusted)).verdict).toEqual(v);
    }
  });

  it('an old head signed after the new one is refused whatever the proof says', async () => {
    const v = verdictOf(await verifyBundle(cons(3, 10, 1_700_000_200_000, 1_700_000_100_000), trusted), 'consistency');
    expect(v.consistency.proofOk).toBe(true);
    expect(v.timestampOrderOk).toBe(false);
    expect(v.overallOk).toBe(false);
  });

  it('a wrong proof, swapped heads, size 0 or a non-genuine head fail', async () => {
    const bad = clone(cons(3, 10)) as any;
    bad.proof[0] = flipHex(bad.proof[0], 0);
    expect((await verifyBundle(bad, trusted)).verdict.overallOk).toBe(false);
    const swapped = cons(3, 10) as any;
    expect((await verifyBundle({ ...swapped, old: swapped.new, new: swapped.old }, trusted)).verdict.overallOk).toBe(false);
    const zero = issueConsistency(head(0, 1), head(10, 2), []);
    expect((await verifyBundle(zero, trusted)).verdict.overallOk).toBe(false);
    const forged = clone(cons(3, 10));
    forged.old.receipt.sig = flipHex(forged.old.receipt.sig);
    const fv = verdictOf(await verifyBundle(forged, trusted), 'consistency');
    expect(fv.overallOk).toBe(false);
    expect(fv.timestampOrderOk).toBeUndefined();
  });
});

describe('kind detection', () => {
  it('recognises all seven kinds and refuses the rest', () => {
    expect(detectKind(proof('x')).kind).toBe('proof');
    expect(detectKind(issueTranscript([])).kind).toBe('transcript');
    expect(detectKind(runBundle).kind).toBe('run');
    expect(detectKind(exportArchive).kind).toBe('export');
    expect(detectKind(head(1, 1)).kind).toBe('sth');
    expect(detectKind(cons(1, 2)).kind).toBe('consistency');
    expect(detectKind({ schema: 'svc-ai-provenance-record' }).kind).toBe('record');
    expect(detectKind({ schema: 'other' }).kind).toBe('unknown');
    expect(detectKind({ signed_tree_head: null })).toEqual({ kind: 'unknown', name: 'unknown', sthWrapper: true });
    expect(detectKind({ kind: 'x', signed: 's', receipt: {}, key: {} }).kind).toBe('unknown');
  });
});

describe('signing-domain separation (rule 7, V3): every receipt presented as every other kind', () => {
  // Each signed kind's receipt, re-wrapped as each other kind with the same key. Only the diagonal
  // may verify: a context is pinned per kind, so a signature never crosses domains.
  const p = proof('x');
  const h = head(5, 1_700_000_000_000);
  const sources: Record<string, { receipt: ReceiptEnvelope; key: ReceiptKey }> = {
    answer: { receipt: p.receipt, key: p.receiptKey },
    autopilot: { receipt: runBundle.receipt, key: runBundle.receiptKey },
    export: { receipt: exportArchive.proof.receipt, key: exportArchive.proof.receiptKey },
    sth: { receipt: h.receipt, key: h.key },
  };
  const wrap: Record<string, (s: { receipt: any; key: any }) => unknown> = {
    answer: (s) => ({ ...clone(p), receipt: s.receipt, receiptKey: s.key }),
    autopilot: (s) => ({ ...clone(runBundle), receipt: s.receipt, receiptKey: s.key }),
    export: (s) => {
      const x = clone(exportArchive);
      x.proof.receipt = s.receipt;
      x.proof.receiptKey = s.key;
      return x;
    },
    sth: (s) => ({ ...clone(h), receipt: s.receipt, key: s.key }),
  };
  for (const from of Object.keys(sources)) {
    for (const as of Object.keys(wrap)) {
      it(`${from} receipt as ${as}: ${from === as ? 'verifies' : 'fails'}`, async () => {
        const r = await verifyBundle(wrap[as]!(sources[from]!), trusted);
        expect(r.verdict.overallOk).toBe(from === as);
        if (from !== as) expect(r.signerRecognized).toBe(false);
      });
    }
  }

  it('the same signature under a swapped subject hash still fails (context, not only hash)', async () => {
    // Issue a run whose hash happens to be used as an answer hash: forge a proof bundle whose answer
    // hash equals the run receipt's answer_sha256 is infeasible, so check the raw context instead.
    const { verifyMlDsa87 } = await import('../../src/crypto/algorithms.js');
    const { receiptMessage } = await import('../../src/wire/signed.js');
    const { fromHex } = await import('../../src/encoding/bytes.js');
    const r = runBundle.receipt;
    const pk = fromHex(runBundle.receiptKey.public_key_hex)!;
    const msg = receiptMessage(r)!;
    expect(verifyMlDsa87(pk, msg, fromHex(r.sig)!, 'svc-autopilot-v1')).toBe(true);
    for (const ctx of ['svc-provenance-v1', 'svc-export-v1', 'svc-sth-v1', 'svc-framing-v1', 'svc-bridge-v1', '']) {
      expect(verifyMlDsa87(pk, msg, fromHex(r.sig)!, ctx)).toBe(false);
    }
  });
});
