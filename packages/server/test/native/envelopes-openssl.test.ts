// Run under Node 24 (tools/scripts/test-runtimes.mjs): the ML-DSA-87 halves of our envelopes read
// by code we did not write. panva's jose verifies the JWS through the runtime's WebCrypto ML-DSA
// with the server's JWK Set; cbor2 decodes the COSE_Sign1 and OpenSSL (node:crypto) verifies its
// Sig_structure. A flipped payload byte, a wrong typ, a key of another kind and a signature made
// with a non-empty context are refused by jose and by our core alike.
import { createPublicKey, verify } from 'node:crypto';
import { decode as cborDecode, encode as cborEncode, type Tag } from 'cbor2';
import { createLocalJWKSet, generalVerify, type GeneralJWS } from 'jose';
import { describe, expect, it } from 'vitest';
import { namesFor } from '@svc/core';
import { fromBase64Url, sign, toBase64Url, utf8 } from '@svc/core/primitives';
import { issueExport, issueProof, issueRun, receiptMessage } from '@svc/core/issue';
import { envelopeMaker, envelopeTypes, mlDsa87Signer, publicJwk, signJws, verifyJws, type GeneralJws } from '@svc/core/envelope';
import { testKeys } from '@svc/core/testing';

const K = testKeys('envelopes-native');
const names = namesFor('svc');
const types = envelopeTypes(names, 'answer');
const bundle = issueProof(
  { answer: 'Checked by others.', model: 'm', ts: 1_767_225_600 },
  { receipt: K.answer, envelopes: envelopeMaker({ formats: ['jws', 'cose'] }) },
);
const envelopes = bundle.receipt.envelopes as { jws: GeneralJws; cose: string[] };
const answerSet = { keys: [publicJwk('ML-DSA-87', K.answer.publicKey)] };
const runSet = { keys: [publicJwk('ML-DSA-87', K.autopilot.publicKey)] };

/** The verifier an app developer writes with jose: the signature, and the kind's typ. */
async function joseVerify(jws: GeneralJws, keys: typeof answerSet, typ = types.jose) {
  const r = await generalVerify(jws as GeneralJWS, createLocalJWKSet(keys as never), { algorithms: ['ML-DSA-87'] });
  if (r.protectedHeader?.typ !== typ) throw new Error(`typ ${r.protectedHeader?.typ}`);
  return r.payload;
}

/** Both verifiers' answers for one JWS: [jose, ours]. */
async function both(jws: GeneralJws, keys = answerSet): Promise<[boolean, boolean]> {
  const jose = await joseVerify(jws, keys).then(
    () => true,
    () => false,
  );
  return [jose, verifyJws(jws, keys as never, { typ: types.jose }).ok];
}

describe('ML-DSA-87 envelopes, read by jose (WebCrypto) and OpenSSL', () => {
  it('jose verifies the JWS with the JWK Set, and its payload is the receipt core', async () => {
    expect(await joseVerify(envelopes.jws, answerSet)).toEqual(receiptMessage(bundle.receipt));
    expect(await both(envelopes.jws)).toEqual([true, true]);
  });

  it('a flipped payload byte, a wrong typ, a key of another kind, a non-empty context: refused by both', async () => {
    const payload = fromBase64Url(envelopes.jws.payload)!;
    payload[3]! ^= 1;
    expect(await both({ ...envelopes.jws, payload: toBase64Url(payload) })).toEqual([false, false]);
    const runTyped = signJws(receiptMessage(bundle.receipt)!, [mlDsa87Signer(K.answer)], envelopeTypes(names, 'run').jose);
    expect(await both(runTyped)).toEqual([false, false]);
    expect(await both(envelopes.jws, runSet)).toEqual([false, false]);
    const s = envelopes.jws.signatures[0]!;
    const withContext = toBase64Url(sign(K.answer, utf8(`${s.protected}.${envelopes.jws.payload}`), 'svc-provenance-v1'));
    expect(await both({ ...envelopes.jws, signatures: [{ ...s, signature: withContext }] })).toEqual([false, false]);
  });

  it("every receipt kind: jose verifies its JWS under its own typ with its kind's key, and refuses it under another", async () => {
    const maker = envelopeMaker({ formats: ['jws'] });
    const run = issueRun(
      {
        id: 'r',
        goal: 'g',
        steps: [{ i: 0, action: 'a', output_sha256: 'aa'.repeat(32), verify: 'v', credits: 1 }],
        status: 'done',
        budgetCredits: 2,
        spentCredits: 1,
      },
      { model: 'm', ts: 1_767_225_600 },
      { receipt: K.autopilot, envelopes: maker },
    ) as { receipt: { envelopes: { jws: GeneralJws } } };
    const exp = issueExport(
      [{ id: 'c', messages: [{ role: 'user', content: 'hi' }] }],
      { model: 'm', ts: 1_767_225_600 },
      { receipt: K.export, envelopes: maker },
    ) as unknown as {
      proof: { receipt: { envelopes: { jws: GeneralJws } } };
    };
    for (const [kind, jws, key] of [
      ['run', run.receipt.envelopes.jws, K.autopilot],
      ['export', exp.proof.receipt.envelopes.jws, K.export],
    ] as const) {
      const set = { keys: [publicJwk('ML-DSA-87', key.publicKey)] };
      expect(await joseVerify(jws, set, envelopeTypes(names, kind).jose)).toBeInstanceOf(Uint8Array);
      await expect(joseVerify(jws, set, types.jose)).rejects.toThrow(/typ/);
      await expect(joseVerify(jws, answerSet, envelopeTypes(names, kind).jose)).rejects.toThrow();
    }
  });

  it('cbor2 decodes the COSE_Sign1 and OpenSSL verifies its Sig_structure with the raw public key', () => {
    const tagged = cborDecode(fromBase64Url(envelopes.cose[0])!) as Tag;
    expect(tagged.tag).toBe(18);
    const [prot, , payload, sig] = tagged.contents as [Uint8Array, unknown, Uint8Array, Uint8Array];
    const header = cborDecode(prot) as Map<number, unknown>;
    expect(header.get(1)).toBe(-50);
    const key = createPublicKey({ key: K.answer.publicKey, format: 'raw-public', asymmetricKeyType: 'ml-dsa-87' } as never);
    const tbs = cborEncode(['Signature1', prot, new Uint8Array(0), payload]);
    expect(verify(null, tbs, key, sig)).toBe(true);
    // OpenSSL's pure ML-DSA with the receipt's context is a different message: the envelope never verifies so.
    expect(verify(null, tbs, { key, context: utf8('svc-provenance-v1') } as never, sig)).toBe(false);
    const changed = Uint8Array.from(tbs);
    changed[changed.length - 1]! ^= 1;
    expect(verify(null, changed, key, sig)).toBe(false);
  });
});
