// Run under Node 24 (tools/scripts/test-runtimes.mjs): OpenSSL (node:crypto) checks the checkpoint lines
// the core signs (ML-DSA-44 subtree/v1, the ML-DSA-87 type under its context, Ed25519), and the
// core checks subtree/v1 signatures OpenSSL makes: two implementations, one message format.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256, utf8 } from '@svc/core/primitives';
import { MemoryTree, treeRoot } from '@svc/core/merkle';
import { rangeHash, subtreeProof } from '@svc/core/merkle';
import {
  MLDSA87_IDENTIFIER,
  checkSignature,
  checkSubtreeSignature,
  cosignedMessage,
  decideAddCheckpoint,
  decideSignSubtree,
  formatSignSubtree,
  parseNote,
  signNote,
  formatCheckpoint,
  logKeygen,
  noteSigner,
  noteVerifier,
  signedMessage,
  type SignatureType,
} from '@svc/core/tlog';

const ORIGIN = 'example.test/openssl';
const text = formatCheckpoint({ origin: ORIGIN, size: 424242, root: sha256(utf8('root')), extensions: [] });
const TS = 1_767_225_600;
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');

function opensslKey(type: SignatureType, pk: Uint8Array) {
  if (type === 'ed25519') return createPublicKey({ key: Buffer.concat([ED25519_SPKI, pk]), format: 'der', type: 'spki' });
  return createPublicKey({ key: pk, format: 'raw-public', asymmetricKeyType: type === 'subtree/v1' ? 'ml-dsa-44' : 'ml-dsa-87' } as never);
}

describe('checkpoint signatures under OpenSSL', () => {
  for (const [i, type] of (['subtree/v1', 'mldsa87-subtree', 'ed25519'] as const).entries()) {
    it(`${type}: the core's line verifies with OpenSSL, and fails there for another text`, () => {
      const key = logKeygen(type, sha256(new Uint8Array([i])));
      const s = noteSigner(ORIGIN, key);
      const line = s.sign(text, TS);
      const timestamped = type !== 'ed25519';
      const sig = timestamped ? line.signature.subarray(8) : line.signature;
      const msg = signedMessage(type, ORIGIN, text, timestamped ? TS : 0);
      const ctx = type === 'mldsa87-subtree' ? { context: utf8(MLDSA87_IDENTIFIER) } : {};
      const pub = opensslKey(type, key.publicKey);
      expect(verify(null, msg, { key: pub, ...ctx } as never, sig)).toBe(true);
      const other = signedMessage(type, ORIGIN, text.replace('424242', '424243'), timestamped ? TS : 0);
      expect(verify(null, other, { key: pub, ...ctx } as never, sig)).toBe(false);
    });
  }

  it('subtree/v1 lines OpenSSL signs (hedged) verify in the core', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ml-dsa-44' as never);
    const raw = new Uint8Array(publicKey.export({ format: 'raw-public' } as never) as unknown as Buffer);
    expect(raw.length).toBe(1312);
    const v = noteVerifier('witness.example/w1', 'subtree/v1', raw);
    const msg = signedMessage('subtree/v1', v.name, text, TS);
    const sig = sign(null, msg, createPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' })));
    const ts = new Uint8Array(8);
    new DataView(ts.buffer).setBigUint64(0, BigInt(TS));
    const full = new Uint8Array([...ts, ...sig]);
    expect(checkSignature('subtree/v1', v.name, raw, text, full)).toEqual({ ok: true, timestamp: TS });
    // The cosigner's name is signed: under another name the same bytes do not verify.
    expect(checkSignature('subtree/v1', 'witness.example/w2', raw, text, full)).toEqual({ ok: false });
  });
});

describe("a witness's cosignatures under OpenSSL", () => {
  it('the subtree/v1 line the witness decision returns verifies with OpenSSL ML-DSA-44 over the cosigned message', () => {
    const logKey = noteSigner(ORIGIN, logKeygen('ed25519', sha256(utf8('openssl-log'))));
    const witness = noteSigner('witness.openssl.test', logKeygen('subtree/v1', sha256(utf8('openssl-witness'))));
    const note = signNote(text, [logKey], 1);
    const a = decideAddCheckpoint(
      `old 0\n\n${note}`,
      (o) => (o === ORIGIN ? [logKey] : undefined),
      () => null,
      [witness],
      TS,
    );
    expect(a.status).toBe(200);
    if (a.status !== 200) return;
    const line = parseNote(`${text}\n${a.body}`).signatures[0]!;
    const ts = Number(new DataView(line.signature.buffer, line.signature.byteOffset).getBigUint64(0));
    expect(ts).toBe(TS);
    const msg = signedMessage('subtree/v1', witness.name, text, ts);
    expect(verify(null, msg, opensslKey('subtree/v1', witness.publicKey), line.signature.subarray(8))).toBe(true);
  });
});

describe('subtree cosignatures (sign-subtree) under OpenSSL', () => {
  it("the witness's subtree line verifies with OpenSSL ML-DSA-44 over the cosigned_message built from the spec's struct", () => {
    const tree = new MemoryTree();
    for (let i = 0; i < 14; i++) tree.appendData(utf8(`leaf ${i}`));
    const cp = formatCheckpoint({ origin: ORIGIN, size: 14, root: treeRoot(tree, 14), extensions: [] });
    const logKey = noteSigner(ORIGIN, logKeygen('ed25519', sha256(utf8('openssl-log'))));
    const witness = noteSigner('witness.openssl.test', logKeygen('subtree/v1', sha256(utf8('openssl-witness'))));
    const hash = rangeHash(tree, 8, 13);
    const body = formatSignSubtree({
      start: 8,
      end: 13,
      hash,
      proof: subtreeProof(tree, 8, 13, 14),
      checkpoint: signNote(cp, [logKey, witness], TS),
    });
    const a = decideSignSubtree(body, (o) => o === ORIGIN, [witness]);
    expect(a.status, a.body).toBe(200);
    const sig = parseNote(`${cp}\n${a.body}`).signatures[0]!.signature;
    // tlog-cosignature's cosigned_message, written out here byte by byte.
    const u64 = (n: number) => Buffer.from(BigInt(n).toString(16).padStart(16, '0'), 'hex');
    const msg = Buffer.concat([
      Buffer.from('subtree/v1\n\0'),
      Buffer.from([witness.name.length]),
      Buffer.from(witness.name),
      u64(0),
      Buffer.from([ORIGIN.length]),
      Buffer.from(ORIGIN),
      u64(8),
      u64(13),
      hash,
    ]);
    expect(sig.subarray(0, 8)).toEqual(new Uint8Array(8));
    const pub = opensslKey('subtree/v1', witness.publicKey);
    expect(verify(null, msg, pub, sig.subarray(8))).toBe(true);
    msg[msg.length - 40]! ^= 1; // the end, 13 -> 12
    expect(verify(null, msg, pub, sig.subarray(8))).toBe(false);
  });

  it('a subtree line OpenSSL signs (hedged) verifies in the core', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ml-dsa-44' as never);
    const raw = new Uint8Array(publicKey.export({ format: 'raw-public' } as never) as unknown as Buffer);
    const s = { origin: ORIGIN, start: 4096, end: 4100, hash: sha256(utf8('subtree')) };
    const sig = sign(null, cosignedMessage('witness.example/w1', 0, s), privateKey);
    const full = new Uint8Array([...new Uint8Array(8), ...sig]);
    expect(checkSubtreeSignature('subtree/v1', 'witness.example/w1', raw, s, full)).toEqual({ ok: true, timestamp: 0 });
    expect(checkSubtreeSignature('subtree/v1', 'witness.example/w1', raw, { ...s, end: 4099 }, full).ok).toBe(false);
  });
});
