// Verify a proof bundle inside a Node app, and make its AI Provenance Record.
//   node examples/node-verify.mjs [bundle.json] [pubkey.json]
// Without arguments it makes a demo bundle with deterministic test keys and verifies it. With a
// server running, pubkey.json is what GET /api/provenance/pubkey answers.
import { readFileSync } from 'node:fs';
import { isSvcError, verifyBundle } from '@svc/core';
import { issueProof } from '@svc/core/issue';
import { buildRecord } from '@svc/core/record';
import { testKeys } from '@svc/core/testing';

const [bundleFile, keysFile] = process.argv.slice(2);
let bundle;
let keys;
if (bundleFile) {
  bundle = readFileSync(bundleFile, 'utf8');
  keys = keysFile ? JSON.parse(readFileSync(keysFile, 'utf8')).keys : [];
} else {
  const K = testKeys('example');
  bundle = issueProof(
    { answer: 'Water boils at 100 °C at sea level.', prompt: 'When does water boil?', model: 'demo', ts: 1_767_225_600 },
    { receipt: K.answer },
  );
  keys = K.trustedKeys;
}

try {
  const res = await verifyBundle(bundle, { trustedKeys: keys });
  console.log(`integrity (overallOk): ${res.verdict.overallOk}`); // unaltered
  console.log(`origin (signerRecognized): ${res.signerRecognized}`); // signed by a key you pinned
  if (res.kind === 'svc-proof') console.log(`question binding: ${res.verdict.receipt.questionBinding ?? 'no question'}`);
  const record = buildRecord(bundle, { trustedKeys: keys, generated: Math.floor(Date.now() / 1000) });
  console.log(`record ${record.schema}: attested signed=${record.attested.signed}, signer_recognized=${record.attested.signer_recognized}`);
  process.exit(res.verdict.overallOk ? 0 : 1);
} catch (e) {
  if (isSvcError(e)) {
    // A document that cannot be read is refused with a code (a failed check is a verdict, not this).
    switch (e.code) {
      case 'invalid_json':
      case 'too_large':
      case 'unknown_kind':
        console.error(`refused: ${e.code} (${e.status}): ${e.message}`);
        process.exit(2);
    }
  }
  throw e;
}
