#!/usr/bin/env node
// Generates test-vectors/scitt/scitt.json deterministically (fixed seeds; ML-DSA signs with no added
// randomness, Ed25519 is deterministic) with the built @svc/core: our Signed Statement about an
// answer, its leaf entry, a log of 8 leaves holding it, the RFC 9942 receipts (ML-DSA-44, Ed25519),
// the Transparent Statement, and single mutations with the refusal each must get. An independent
// implementation of docs/wire-format.md s.13 must produce the same bytes from the same inputs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, toHex, utf8 } from '@svc/core/primitives';
import { MemoryTree, inclusionProof, leafHash, treeRoot } from '@svc/core/merkle';
import { coseKey, mlDsa87Signer } from '@svc/core/envelope';
import * as s from '@svc/core/scitt';
import { keygen, ML_DSA_87 } from '@svc/core/primitives';
import { logKeygen } from '@svc/core/tlog';
import { root as repoRoot } from '../lib/root.mjs';

const out = join(repoRoot, 'test-vectors', 'scitt');
mkdirSync(out, { recursive: true });
const seed = (x) => sha256(utf8(`svc-scitt-vectors/${x}`));
const answerKey = keygen(ML_DSA_87, seed('answer'));
const log44 = logKeygen('subtree/v1', seed('log-mldsa44'));
const logEd = logKeygen('ed25519', seed('log-ed25519'));
const ORIGIN = 'example.test/svc-vectors';
const ANSWER = 'Paris is the capital of France.';
const IAT = 1_767_225_600;

function check(cond, what) {
  if (!cond) throw new Error(`vector contradicts its intent: ${what}`);
}

const answerSha256 = sha256(utf8(ANSWER));
const statement = s.signStatement(
  { answerSha256, iss: 'svc', sub: `urn:svc:answer:${toHex(answerSha256)}`, iat: IAT, typ: 'application/vnd.svc.answer-statement+cose' },
  mlDsa87Signer(answerKey),
);
const leaf = s.statementLeaf(statement);
const INDEX = 5;
const SIZE = 8;
const tree = new MemoryTree();
for (let i = 0; i < SIZE; i++) tree.appendData(i === INDEX ? leaf : seed(`filler ${i}`));
const root = treeRoot(tree, SIZE);
const path = inclusionProof(tree, INDEX, SIZE);
const content = { index: INDEX, size: SIZE, path, root, iss: ORIGIN };
const receipts = { 'ML-DSA-44': s.makeReceipt(content, s.logKeySigner(log44)), Ed25519: s.makeReceipt(content, s.logKeySigner(logEd)) };
const transparent = s.withReceipts(statement, Object.values(receipts));
const issuers = [coseKey('ML-DSA-87', answerKey.publicKey)];
const logKeys = [coseKey('ML-DSA-44', log44.publicKey), coseKey('Ed25519', logEd.publicKey)];
const logs = [{ keys: logKeys, checkpoint: { size: SIZE, root } }];
check(s.verifyTransparentStatement(transparent, { issuers, logs }).ok, 'the transparent statement verifies');
check(toHex(leaf) === toHex(sha256(statement)), 'the leaf is the SHA-256 of the statement');

const flip = (b, i) => {
  const c = b.slice();
  c[i < 0 ? c.length + i : i] ^= 1;
  return c;
};
const mutations = [
  ['the statement signature changed', s.withReceipts(flip(statement, -1), Object.values(receipts)), 'bad_statement_signature'],
  [
    'the ML-DSA-44 receipt signature changed',
    s.withReceipts(statement, [flip(receipts['ML-DSA-44'], -1), receipts.Ed25519]),
    'root_not_signed',
  ],
  ['no receipt', statement, 'no_receipt'],
  [
    'a receipt of another leaf',
    s.withReceipts(
      s.signStatement(
        {
          answerSha256: seed('other'),
          iss: 'svc',
          sub: 'urn:svc:answer:other',
          iat: IAT,
          typ: 'application/vnd.svc.answer-statement+cose',
        },
        mlDsa87Signer(answerKey),
      ),
      [receipts['ML-DSA-44']],
    ),
    'root_not_signed',
  ],
].map(([description, bytes, error]) => {
  const v = s.verifyTransparentStatement(bytes, { issuers, logs });
  check(!v.ok && v.error === error, `${description}: ${error} (got ${v.error})`);
  return { description, transparent: toHex(bytes), expected: { ok: false, error } };
});

const doc = {
  description:
    'SCITT (wire-format s.13): our Signed Statement, leaf entry, RFC 9942 receipts and Transparent Statement, byte for byte, and single mutations',
  format: 1,
  inputs: {
    seeds: 'SHA-256 of "svc-scitt-vectors/<name>": answer (ML-DSA-87 keygen), log-mldsa44, log-ed25519 (logKeygen), filler <i> (leaf data)',
    answer: ANSWER,
    iss: 'svc',
    iat: IAT,
    typ: 'application/vnd.svc.answer-statement+cose',
    origin: ORIGIN,
    tree: { size: SIZE, index: INDEX },
    public_keys: { answer: toHex(answerKey.publicKey), 'log-mldsa44': toHex(log44.publicKey), 'log-ed25519': toHex(logEd.publicKey) },
  },
  expected: {
    statement: toHex(statement),
    leaf_entry: toHex(leaf),
    leaf_hash: toHex(leafHash(leaf)),
    root: toHex(root),
    path: path.map(toHex),
    receipts: Object.fromEntries(Object.entries(receipts).map(([k, v]) => [k, toHex(v)])),
    transparent: toHex(transparent),
  },
  mutations,
};
writeFileSync(join(out, 'scitt.json'), `${JSON.stringify(doc, null, 1)}\n`);
console.log(`wrote test-vectors/scitt/scitt.json (${mutations.length} mutations)`);
