// verifyBundle with default options (the WebCrypto backend every Node >= 24 user gets) against one
// raw WebCrypto ML-DSA-87 verify of the same receipt, in the same run. Run by bench/run.mjs under
// Node 24 and Node 26; needs only the built core.
import { verifyBundle, webCryptoBackend } from '@svc/core';
import { fromHex, utf8 } from '@svc/core/primitives';
import { issueProof, receiptMessage } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
import { compare, line } from './util.mjs';

export async function webCryptoBench() {
  if (!(await webCryptoBackend())) {
    console.log(`Node ${process.version}: no WebCrypto ML-DSA-87, skipped`);
    return null;
  }
  const K = testKeys('bench-2026');
  const bundle = issueProof(
    { answer: 'The quick brown fox jumps over the lazy dog. '.repeat(20), model: 'bench', ts: 1_767_225_600 },
    { receipt: K.answer },
  );
  const subtle = globalThis.crypto.subtle;
  const context = utf8('svc-provenance-v1');
  const sig = fromHex(bundle.receipt.sig);
  const msg = receiptMessage(bundle.receipt);
  const key = await subtle.importKey('raw-public', fromHex(bundle.receiptKey.public_key_hex), { name: 'ML-DSA-87' }, false, ['verify']);
  const raw = async () => {
    if (!(await subtle.verify({ name: 'ML-DSA-87', context }, key, sig, msg))) throw new Error('raw WebCrypto verify failed');
  };
  const byDefault = async () => {
    if (!(await verifyBundle(bundle, { trustedKeys: K.trustedKeys })).verdict.overallOk) throw new Error('bundle failed');
  };
  const { a: rawMs, b: fullMs, ratio } = await compare(raw, byDefault, { n: 20, rounds: 1, warmup: 20, pairs: 61 });
  line(`raw WebCrypto ML-DSA-87 verify, Node ${process.version} (baseline)`, `${rawMs.toFixed(4)} ms`);
  line('verifyBundle with default options (WebCrypto)', `${fullMs.toFixed(4)} ms`);
  line('ratio verifyBundle / raw WebCrypto verify (median of 61 adjacent pairs)', ratio.toFixed(3), '<= 1.2');
  return ratio;
}

if (import.meta.url === `file://${process.argv[1]}`) await webCryptoBench();
