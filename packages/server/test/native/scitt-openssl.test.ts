// Run under Node 24 (tools/scripts/test-runtimes.mjs): our SCITT statement and ML-DSA-44 receipt
// read by code we did not write. cbor2 decodes both; OpenSSL (node:crypto) verifies the statement's
// ML-DSA-87 Sig_structure and the receipt's ML-DSA-44 Sig_structure over the root the inclusion
// path rebuilds (hashed here with OpenSSL's SHA-256); a changed root, path or payload is refused.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { decode as cborDecode, encode as cborEncode, type Tag } from 'cbor2';
import { describe, expect, it } from 'vitest';
import { sha256, utf8 } from '@svc/core/primitives';
import { mlDsa87Signer } from '@svc/core/envelope';
import { logKeySigner, makeReceipt, signStatement, statementLeaf } from '@svc/core/scitt';
import { testKeys } from '@svc/core/testing';
import { logKeygen } from '@svc/core/tlog';
import { MemoryTree, inclusionProof, treeRoot } from '../../../core/src/merkle/index.js';

const K = testKeys('scitt-native');
const log44 = logKeygen('subtree/v1', sha256(utf8('scitt-native log')));
const statement = signStatement(
  {
    answerSha256: sha256(utf8('Checked by OpenSSL.')),
    iss: 'svc',
    sub: 'urn:svc:answer:x',
    iat: 1_767_225_600,
    typ: 'application/vnd.svc.answer-statement+cose',
  },
  mlDsa87Signer(K.answer),
);
const tree = new MemoryTree();
for (let i = 0; i < 11; i++) tree.appendData(i === 6 ? statementLeaf(statement) : sha256(utf8(`filler ${i}`)));
const receipt = makeReceipt(
  { index: 6, size: 11, path: inclusionProof(tree, 6, 11), root: treeRoot(tree, 11), iss: 'svc-ledger.invalid/00' },
  logKeySigner(log44),
);
const H = (...b: Uint8Array[]) => new Uint8Array(createHash('sha256').update(Buffer.concat(b)).digest());
const tbs = (prot: Uint8Array, payload: Uint8Array) => cborEncode(['Signature1', prot, new Uint8Array(0), payload]);

/** RFC 9162 s.2.1.3.2, written from the RFC: the root an inclusion path leads to. */
function rootOf(index: number, size: number, leaf: Uint8Array, path: Uint8Array[]): Uint8Array {
  let [fn, sn] = [index, size - 1];
  let r = H(new Uint8Array([0]), leaf);
  for (const p of path) {
    if (fn % 2 === 1 || fn === sn) {
      r = H(new Uint8Array([1]), p, r);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else r = H(new Uint8Array([1]), r, p);
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  return r;
}

describe('SCITT statement and receipt, read by cbor2 and OpenSSL', () => {
  it("the statement's ML-DSA-87 signature (pure, empty context) verifies; another payload does not", () => {
    const [prot, unprot, payload, sig] = (cborDecode(statement, { preferMap: true }) as Tag).contents as [
      Uint8Array,
      Map<number, unknown>,
      Uint8Array,
      Uint8Array,
    ];
    const header = cborDecode(prot) as Map<number, unknown>;
    expect([header.get(1), header.get(258), header.get(259)]).toEqual([-50, -16, 'text/plain; charset=utf-8']);
    expect(unprot.size).toBe(0);
    const key = createPublicKey({ key: K.answer.publicKey, format: 'raw-public', asymmetricKeyType: 'ml-dsa-87' } as never);
    expect(verify(null, tbs(prot, payload), key, sig)).toBe(true);
    expect(verify(null, tbs(prot, sha256(utf8('another answer'))), key, sig)).toBe(false);
  });

  it("the receipt's ML-DSA-44 signature covers the root its path rebuilds for the statement's SHA-256", () => {
    const [prot, unprot, payload, sig] = (cborDecode(receipt, { preferMap: true }) as Tag).contents as [
      Uint8Array,
      Map<number, Map<number, Uint8Array[]>>,
      null,
      Uint8Array,
    ];
    expect(payload).toBeNull();
    expect((cborDecode(prot) as Map<number, unknown>).get(1)).toBe(-48);
    const [size, index, path] = cborDecode(unprot.get(396)!.get(-1)![0]!) as [number, number, Uint8Array[]];
    const leaf = H(statement);
    const root = rootOf(index, size, leaf, path);
    expect(Buffer.from(root).equals(Buffer.from(treeRoot(tree, 11)))).toBe(true);
    const key = createPublicKey({ key: log44.publicKey, format: 'raw-public', asymmetricKeyType: 'ml-dsa-44' } as never);
    expect(verify(null, tbs(prot, root), key, sig)).toBe(true);
    const otherPath = path.map((p, i) => (i === 1 ? H(p) : p));
    expect(verify(null, tbs(prot, rootOf(index, size, leaf, otherPath)), key, sig)).toBe(false);
    expect(verify(null, tbs(prot, rootOf(index, size, H(leaf), path)), key, sig)).toBe(false);
  });
});
