// Envelope verification (#33): verifyJws / verifyCose1 of an ML-DSA-87 envelope against one raw
// ML-DSA-87 verify of the same signing input, interleaved in the same run (goal <= 1.2x): on noble,
// and, where node:crypto has ML-DSA (Node >= 24), on the native backend the server uses.
//   node tools/bench/envelope.mjs
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { namesFor } from '@svc/core';
import { fromBase64Url, syncVerifier, utf8 } from '@svc/core/primitives';
import { issueProof, receiptMessage } from '@svc/core/issue';
import {
  signCose1,
  coseKey,
  envelopeTypes,
  mlDsa87Signer,
  publicJwk,
  readCose1,
  sigStructure,
  signJws,
  verifyCose1,
  verifyJws,
} from '@svc/core/envelope';
import { testKeys } from '@svc/core/testing';
import { nodeCryptoBackend } from '../../packages/server/dist/internal.js';
import { compare, line } from './util.mjs';

export async function envelopeBench() {
  const K = testKeys('bench-2026');
  const names = namesFor('svc');
  const types = envelopeTypes(names, 'answer');
  const bundle = issueProof(
    { answer: 'The quick brown fox jumps over the lazy dog. '.repeat(20), model: 'bench', ts: 1_767_225_600 },
    { receipt: K.answer },
  );
  const payload = receiptMessage(bundle.receipt);
  const signer = mlDsa87Signer(K.answer);
  const jws = signJws(payload, [signer], types.jose);
  const jwks = { keys: [publicJwk('ML-DSA-87', K.answer.publicKey)] };
  const cose = signCose1(payload, signer, types.cose, { iss: 'svc', iat: bundle.receipt.ts });
  const coseKeys = [coseKey('ML-DSA-87', K.answer.publicKey)];
  const jwsInput = utf8(`${jws.signatures[0].protected}.${jws.payload}`);
  const jwsSig = fromBase64Url(jws.signatures[0].signature);
  const parts = readCose1(cose);
  const coseInput = sigStructure(parts.protectedBytes, parts.payload);
  const pk = K.answer.publicKey;
  const opts = { typ: types.jose, algorithms: ['ML-DSA-87'] };
  const must = (ok) => {
    if (!ok) throw new Error('verify failed');
  };

  const backends = [['noble', undefined, (m, s) => ml_dsa87.verify(s, m, pk)]];
  const native = nodeCryptoBackend();
  if (native) {
    const key = createPublicKey({ key: pk, format: 'raw-public', asymmetricKeyType: 'ml-dsa-87' });
    backends.push(['node:crypto', syncVerifier(native), (m, s) => nodeVerify(null, m, key, s)]);
  }
  const results = {};
  for (const [name, compute, raw] of backends) {
    const j = await compare(
      () => must(raw(jwsInput, jwsSig)),
      () => must(verifyJws(jws, jwks, { ...opts, compute }).ok),
      { n: name === 'noble' ? 20 : 200, pairs: 7 },
    );
    line(`[${name}] raw ML-DSA-87 verify of the JWS signing input (baseline)`, `${j.a.toFixed(3)} ms`);
    line(`[${name}] ratio verifyJws / raw verify`, j.ratio.toFixed(3), '<= 1.2');
    const c = await compare(
      () => must(raw(coseInput, parts.signature)),
      () => must(verifyCose1(cose, coseKeys, { typ: types.cose, compute }).ok),
      { n: name === 'noble' ? 20 : 200, pairs: 7 },
    );
    line(`[${name}] ratio verifyCose1 / raw verify`, c.ratio.toFixed(3), '<= 1.2');
    results[name] = { jws: j.ratio, cose: c.ratio };
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { machine } = await import('./util.mjs');
  console.log(`machine: ${machine()}`);
  console.log(`runtime: Node ${process.version}`);
  await envelopeBench();
}
