// Our SCITT vectors (test-vectors/scitt/scitt.json, wire-format s.13): every output rebuilt from the
// stated inputs must be the same bytes, and every mutation gets the refusal it names.
import { describe, expect, it } from 'vitest';
import { keygen, ML_DSA_87, sha256, toHex, utf8, fromHex } from '@svc/core/primitives';
import { MemoryTree, inclusionProof } from '@svc/core/merkle';
import { coseKey, mlDsa87Signer } from '@svc/core/envelope';
import { logKeySigner, makeReceipt, signStatement, statementLeaf, verifyTransparentStatement, withReceipts } from '@svc/core/scitt';
import { logKeygen } from '@svc/core/tlog';
import { treeRoot } from '../../src/merkle/index.js';
import { scittVectors as v } from '../vectors-fs.js';

const seed = (x: string) => sha256(utf8(`svc-scitt-vectors/${x}`));
const answerKey = keygen(ML_DSA_87, seed('answer'));
const log44 = logKeygen('subtree/v1', seed('log-mldsa44'));
const logEd = logKeygen('ed25519', seed('log-ed25519'));

describe('our SCITT vectors', () => {
  it('the keys are the ones the inputs name', () => {
    expect(toHex(answerKey.publicKey)).toBe(v.inputs.public_keys.answer);
    expect(toHex(log44.publicKey)).toBe(v.inputs.public_keys['log-mldsa44']);
    expect(toHex(logEd.publicKey)).toBe(v.inputs.public_keys['log-ed25519']);
  });

  it('statement, leaf entry, tree, receipts and transparent statement: the same bytes', () => {
    const h = sha256(utf8(v.inputs.answer));
    const statement = signStatement(
      { answerSha256: h, iss: v.inputs.iss, sub: `urn:svc:answer:${toHex(h)}`, iat: v.inputs.iat, typ: v.inputs.typ },
      mlDsa87Signer(answerKey),
    );
    expect(toHex(statement)).toBe(v.expected.statement);
    const leaf = statementLeaf(statement);
    expect(toHex(leaf)).toBe(v.expected.leaf_entry);
    const { size, index } = v.inputs.tree;
    const tree = new MemoryTree();
    for (let i = 0; i < size; i++) tree.appendData(i === index ? leaf : seed(`filler ${i}`));
    const root = treeRoot(tree, size);
    expect(toHex(root)).toBe(v.expected.root);
    const path = inclusionProof(tree, index, size);
    expect(path.map(toHex)).toEqual(v.expected.path);
    const content = { index, size, path, root, iss: v.inputs.origin };
    const receipts = [makeReceipt(content, logKeySigner(log44)), makeReceipt(content, logKeySigner(logEd))];
    expect(receipts.map(toHex)).toEqual([v.expected.receipts['ML-DSA-44'], v.expected.receipts.Ed25519]);
    expect(toHex(withReceipts(statement, receipts))).toBe(v.expected.transparent);
  });

  const issuers = [coseKey('ML-DSA-87', answerKey.publicKey)];
  const logs = [
    {
      keys: [coseKey('ML-DSA-44', log44.publicKey), coseKey('Ed25519', logEd.publicKey)],
      checkpoint: { size: v.inputs.tree.size, root: fromHex(v.expected.root, 32)! },
    },
  ];
  it('the transparent statement verifies against its checkpoint', () => {
    expect(verifyTransparentStatement(fromHex(v.expected.transparent)!, { issuers, logs }).ok).toBe(true);
  });

  it.each(v.mutations.map((m) => [m.description, m] as const))('%s', (_d, m) => {
    expect(v.mutations.length).toBeGreaterThan(0);
    const r = verifyTransparentStatement(fromHex(m.transparent)!, { issuers, logs });
    expect({ ok: r.ok, error: r.error }).toEqual(m.expected);
  });
});
