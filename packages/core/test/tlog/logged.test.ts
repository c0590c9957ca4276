// A proof bundle that carries its logging (`tlogProof`): the inclusion path is checked by every
// verifier; the log's and witnesses' signatures by one given a policy, reported apart from
// overallOk; every single mutation fails or reports the quorum unmet.
import { describe, expect, it } from 'vitest';
import { verifyBundle, verifyBundleSync } from '../../src/dispatch.js';
import { sha256, textSha256 } from '../../src/encoding/hash.js';
import { utf8 } from '../../src/encoding/bytes.js';
import { issueProof } from '../../src/issue/bundles.js';
import { MemoryTree } from '../../src/merkle/memory.js';
import { inclusionProof, treeRoot } from '../../src/merkle/prove.js';
import { formatCheckpoint, formatTlogProof, logKeygen, logPolicy, noteSigner, signNote } from '../../src/tlog/index.js';
import { K, clone, verdictOf } from '../helpers.js';
import { CODE_OF_PRACTICE_LOGGED, CODE_OF_PRACTICE_UNLOGGED, aiActSupport } from '../../src/record/table.js';
import { asKind } from '../../src/testing/kind.js';

const ORIGIN = 'example.test/ledger';
const seed = (s: string) => sha256(utf8(`logged/${s}`));
const log = noteSigner(ORIGIN, logKeygen('subtree/v1', seed('log')));
const ws = [1, 2, 3].map((i) => noteSigner(`w${i}.example.test`, logKeygen('subtree/v1', seed(`w${i}`))));
const policyText = `log ${log.vkey}\n${ws.map((w, i) => `witness W${i + 1} ${w.vkey}`).join('\n')}\ngroup G 2 W1 W2 W3\nquorum G\n`;
const policy = logPolicy(policyText);

const answer = 'Paris is the capital of France.';
const base = { answer, model: 'council-v1', ts: 1_700_000_000, created: 1_700_000_001 };
const tree = new MemoryTree();
for (let i = 0; i < 40; i++) tree.appendData(sha256(utf8(`other ${i}`)));
const index = tree.appendData(textSha256(answer)!);
for (let i = 0; i < 9; i++) tree.appendData(sha256(utf8(`later ${i}`)));
const size = 50;
const text = formatCheckpoint({ origin: ORIGIN, size, root: treeRoot(tree, size), extensions: [] });
const checkpoint = signNote(text, [log], 1_767_225_600) + signNote(text, ws, 1_767_225_601).slice(text.length + 1);
const proofText = formatTlogProof({ index, proof: inclusionProof(tree, index, size), checkpoint });
const bundle = { ...issueProof(base, { receipt: K.answer }), tlogProof: proofText };
const opts = { trustedKeys: K.trustedKeys, logPolicy: policy };

describe('the log layer of a proof bundle', () => {
  it('without a policy: the path is checked, the log and witnesses are not judged', async () => {
    const r = await verifyBundle(bundle, { trustedKeys: K.trustedKeys });
    const v = verdictOf(r, 'proof');
    expect(v.overallOk).toBe(true);
    expect(v.log).toEqual({
      present: true,
      ok: true,
      origin: ORIGIN,
      index: 40,
      treeSize: 50,
      policyChecked: false,
      logRecognized: false,
      witnesses: 0,
      quorumMet: null,
    });
  });

  it('with the policy: the log is recognised and three witnesses counted, the quorum met', async () => {
    const v = verdictOf(await verifyBundle(bundle, opts), 'proof');
    expect(v.overallOk).toBe(true);
    expect(v.log).toMatchObject({ ok: true, policyChecked: true, logRecognized: true, witnesses: 3, quorumMet: true });
    expect(verdictOf(verifyBundleSync(bundle, opts), 'proof').log?.quorumMet).toBe(true);
  });

  it('two witness lines removed: still included, but the quorum is not met', async () => {
    const lines = proofText.split('\n');
    const cut = lines.filter((l) => !l.startsWith('\u2014 w1.') && !l.startsWith('\u2014 w2.')).join('\n');
    const v = verdictOf(await verifyBundle({ ...bundle, tlogProof: cut }, opts), 'proof');
    expect(v.overallOk).toBe(true);
    expect(v.log).toMatchObject({ ok: true, witnesses: 1, quorumMet: false });
  });

  it.each([
    ['the index', (p: string) => p.replace(`index ${index}`, `index ${index + 1}`)],
    ['a path node', (p: string) => p.replace(/\nindex \d+\n(.)/, (m, c) => m.slice(0, -1) + (c === 'A' ? 'B' : 'A'))],
    ['the checkpoint size', (p: string) => p.replace(`\n${size}\n`, `\n${size + 1}\n`)],
    ['the checkpoint root', (p: string) => p.replace(/\n50\n(.)/, (m, c) => m.slice(0, -1) + (c === 'A' ? 'B' : 'A'))],
    ['the header', (p: string) => p.replace('tlog-proof@v1', 'tlog-proof@v9')],
    ['not a string', () => 42 as unknown as string],
  ])('a changed %s fails the bundle (V5)', async (_what, change) => {
    const v = verdictOf(await verifyBundle({ ...bundle, tlogProof: change(proofText) }, opts), 'proof');
    expect(v.log?.ok).toBe(false);
    expect(v.overallOk).toBe(false);
  });

  it("a changed signature of the log's key fails the layer under the policy, and only there", async () => {
    const bad = proofText.replace(/(\u2014 example\.test\/ledger .{40})(.)/, (_m, a, c) => a + (c === 'A' ? 'B' : 'A'));
    expect(verdictOf(await verifyBundle({ ...bundle, tlogProof: bad }, opts), 'proof')).toMatchObject({
      overallOk: false,
      log: { ok: false },
    });
    // Without a policy nobody judged that line: the path still holds.
    expect(verdictOf(await verifyBundle({ ...bundle, tlogProof: bad }, { trustedKeys: K.trustedKeys }), 'proof').overallOk).toBe(true);
  });

  it("another answer's bundle with this proof fails: the leaf is the answer's", async () => {
    const other = { ...issueProof({ ...base, answer: 'Lyon.' }, { receipt: K.answer }), tlogProof: proofText };
    expect(verdictOf(await verifyBundle(other, opts), 'proof')).toMatchObject({ overallOk: false, log: { ok: false } });
  });

  it('a stranger log with the same origin is not recognised', async () => {
    const stranger = noteSigner(ORIGIN, logKeygen('subtree/v1', seed('stranger')));
    const forged = formatTlogProof({ index, proof: inclusionProof(tree, index, size), checkpoint: signNote(text, [stranger], 1) });
    const v = verdictOf(await verifyBundle({ ...clone(bundle), tlogProof: forged }, opts), 'proof');
    expect(v.log).toMatchObject({ ok: true, logRecognized: false, quorumMet: false });
  });
});

describe('records of logged bundles (E4)', () => {
  it('attest where the answer is logged, add the logging row to the AI-Act mapping, and re-verify unchanged', async () => {
    const { buildRecord } = await import('../../src/record/build.js');
    const rec = buildRecord(bundle, { generated: 1_767_225_700, ...opts });
    expect(rec.attested.logged).toEqual({ origin: ORIGIN, index: 40, tree_size: 50 });
    const titles = rec.ai_act_support.map((x) => x.title);
    expect(titles).toContain('Marking of synthetic content: logging');
    expect(rec.ai_act_support.at(-1)).toEqual(CODE_OF_PRACTICE_LOGGED);
    const again = await verifyBundle(rec, opts);
    expect(again.verdict.overallOk).toBe(true);
    expect(asKind(again, 'record').record.summaryOk).toBe(true);
    expect(asKind(again, 'record').record.originClaimUnconfirmed).toBeUndefined();
    // Where the log's keys are not known the record still verifies; its logging claim is unconfirmed.
    const elsewhere = asKind(await verifyBundle(rec, { trustedKeys: K.trustedKeys }), 'record');
    expect(elsewhere.record).toMatchObject({ summaryOk: true, originClaimUnconfirmed: true });
    // Made without the log's keys, a record attests no log (#30 row 7): the path alone names no log.
    const unjudged = buildRecord(bundle, { generated: 1_767_225_700, trustedKeys: K.trustedKeys });
    expect(unjudged.attested.logged).toBeUndefined();
    expect(unjudged.ai_act_support).toEqual(aiActSupport(false));
    expect(unjudged.notes.join(' ')).toMatch(/not checked against its log's keys/);
    expect(asKind(await verifyBundle(unjudged, opts), 'record').record.summaryOk).toBe(true);
    // An unlogged proof's record has neither; claiming them is an over-claim (422).
    const plainRec = buildRecord(issueProof(base, { receipt: K.answer }), { generated: 1, trustedKeys: K.trustedKeys });
    expect(plainRec.attested.logged).toBeUndefined();
    expect(plainRec.ai_act_support).toEqual(aiActSupport(false));
    expect(plainRec.ai_act_support.at(-1)).toEqual(CODE_OF_PRACTICE_UNLOGGED);
    await expect(
      verifyBundle({ ...plainRec, attested: { ...plainRec.attested, logged: { origin: ORIGIN, index: 1, tree_size: 2 } } }),
    ).rejects.toMatchObject({ code: 'record_mismatch' });
    for (const o of [opts, { trustedKeys: K.trustedKeys }]) {
      await expect(
        verifyBundle({ ...rec, attested: { ...rec.attested, logged: { origin: ORIGIN, index: 41, tree_size: 50 } } }, o),
      ).rejects.toMatchObject({ code: 'record_mismatch' });
      await expect(verifyBundle({ ...rec, ai_act_support: plainRec.ai_act_support }, o)).rejects.toMatchObject({ code: 'record_mismatch' });
      // Only the unlogged 1.1.3 row on a logged record (or the reverse) is an over- or under-claim too.
      const swapped = [...rec.ai_act_support.slice(0, -1), CODE_OF_PRACTICE_UNLOGGED];
      await expect(verifyBundle({ ...rec, ai_act_support: swapped }, o)).rejects.toMatchObject({ code: 'record_mismatch' });
      const claimed = [...plainRec.ai_act_support.slice(0, -1), CODE_OF_PRACTICE_LOGGED];
      await expect(verifyBundle({ ...plainRec, ai_act_support: claimed }, o)).rejects.toMatchObject({ code: 'record_mismatch' });
    }
  });
});
