// The SCITT layer of a proof bundle (V5): checked with scittChecker, it must hold (signed with the
// bundle's receipt key, about exactly its answer, with a receipt from a trusted log); unchecked, it
// counts neither way and says so.
import { describe, expect, it } from 'vitest';
import { verifyBundle } from '@svc/core';
import { sha256, toBase64Url, utf8 } from '@svc/core/primitives';
import { issueProof } from '@svc/core/issue';
import { coseKey, mlDsa87Signer } from '@svc/core/envelope';
import { logKeySigner, makeReceipt, scittChecker, signStatement, statementLeaf, withReceipts } from '@svc/core/scitt';
import { testKeys } from '@svc/core/testing';
import { logKeygen } from '@svc/core/tlog';
import { MemoryTree, inclusionProof, treeRoot } from '../../src/merkle/index.js';

const K = testKeys('scitt-bundle');
const other = testKeys('scitt-bundle-other');
const log = logKeygen('subtree/v1', sha256(utf8('bundle log')));
const checker = scittChecker({ logs: [{ keys: [coseKey('ML-DSA-44', log.publicKey)] }] });
const ANSWER = 'Carried with its statement.';

function transparent(answer: string, key = K.answer): string {
  const st = signStatement(
    {
      answerSha256: sha256(utf8(answer)),
      iss: 'svc',
      sub: 'urn:svc:answer',
      iat: 1_767_225_600,
      typ: 'application/vnd.svc.answer-statement+cose',
    },
    mlDsa87Signer(key),
  );
  const tree = new MemoryTree();
  tree.appendData(sha256(utf8('before')));
  tree.appendData(statementLeaf(st));
  const receipt = makeReceipt(
    { index: 1, size: 2, path: inclusionProof(tree, 1, 2), root: treeRoot(tree, 2), iss: 'svc-ledger.invalid/01' },
    logKeySigner(log),
  );
  return toBase64Url(withReceipts(st, [receipt]));
}

const bundle = issueProof({ answer: ANSWER, model: 'm', ts: 1_767_225_600 }, { receipt: K.answer });
const opts = { trustedKeys: [bundle.receiptKey!] };

describe('a proof bundle carrying a SCITT Transparent Statement', () => {
  it('checked: it holds, and the verdict says which receipts held', async () => {
    const r = await verifyBundle({ ...bundle, scitt: transparent(ANSWER) }, { ...opts, scitt: checker });
    expect(r.verdict.overallOk).toBe(true);
    expect((r.verdict as { scitt?: unknown }).scitt).toMatchObject({
      checked: true,
      ok: true,
      receipts: [{ ok: true, alg: 'ML-DSA-44', index: 1, size: 2 }],
    });
  });

  it('unchecked: {checked: false}, and it counts neither way', async () => {
    const r = await verifyBundle({ ...bundle, scitt: 'not even base64url!' }, opts);
    expect(r.verdict.overallOk).toBe(true);
    expect((r.verdict as { scitt?: unknown }).scitt).toEqual({ checked: false });
  });

  it.each([
    ['about another answer', () => transparent('Another answer.'), 'payload_mismatch'],
    ['signed with a key other than the receipt key', () => transparent(ANSWER, other.answer), 'unknown_key'],
    ['not base64url', () => '!!', 'malformed'],
  ])('checked and %s: overallOk is false (V5)', async (_name, make, code) => {
    const r = await verifyBundle({ ...bundle, scitt: make() }, { ...opts, scitt: checker });
    expect(r.verdict.overallOk).toBe(false);
    expect((r.verdict as { scitt?: { error?: string } }).scitt?.error).toBe(code);
  });

  // Round five, row 4: a statement registered in a log this verifier does not know is judged (the
  // signature, the answer) and its log reported unrecognised, as tlogProof does; never a failure,
  // so a record made where that log is known verifies the same here.
  it('receipts only from logs it does not know: the statement judged, logRecognized false, the bundle not failed', async () => {
    const stranger = scittChecker({ logs: [{ keys: [coseKey('ML-DSA-44', logKeygen('subtree/v1', sha256(utf8('x'))).publicKey)] }] });
    const r = await verifyBundle({ ...bundle, scitt: transparent(ANSWER) }, { ...opts, scitt: stranger });
    expect(r.verdict.overallOk).toBe(true);
    expect((r.verdict as { scitt?: unknown }).scitt).toMatchObject({ checked: true, ok: true, logRecognized: false });
    const known = await verifyBundle({ ...bundle, scitt: transparent(ANSWER) }, { ...opts, scitt: checker });
    expect((known.verdict as { scitt?: unknown }).scitt).toMatchObject({ checked: true, ok: true, logRecognized: true });
    // Not a way around the statement's own checks: another answer, or a damaged signature, still fail.
    const other = await verifyBundle({ ...bundle, scitt: transparent('another answer') }, { ...opts, scitt: stranger });
    expect(other.verdict.overallOk).toBe(false);
  });
});
