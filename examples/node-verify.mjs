// Verify a proof bundle inside a Node app.
//   node examples/node-verify.mjs [bundle.json] [pubkey.json]
// Without arguments it makes a demo bundle with deterministic test keys and verifies it.
import { readFileSync } from 'node:fs';
import { verifyBundle, issueProof, isSvcError } from '@svc/core';
import { testKeys } from '@svc/core/testing';

const [bundleFile, keysFile] = process.argv.slice(2);
let bundle;
let trustedKeys;
if (bundleFile) {
  bundle = readFileSync(bundleFile, 'utf8');
  trustedKeys = keysFile ? JSON.parse(readFileSync(keysFile, 'utf8')).keys : [];
} else {
  const K = testKeys('example');
  bundle = issueProof(
    { answer: 'Water boils at 100 °C at sea level.', prompt: 'When does water boil?', model: 'demo', ts: 1_767_225_600 },
    { receipt: K.answer },
  );
  trustedKeys = K.trustedKeys;
}

try {
  const res = await verifyBundle(bundle, { trustedKeys });
  console.log(`integrity (overallOk): ${res.verdict.overallOk}`);
  console.log(`origin (signerRecognized): ${res.signerRecognized}`);
  console.log(`question binding: ${res.verdict.receipt?.questionBinding ?? 'no question'}`);
  process.exit(res.verdict.overallOk ? 0 : 1);
} catch (e) {
  if (isSvcError(e)) {
    console.error(`refused: ${e.code} (${e.status}): ${e.message}`);
    process.exit(2);
  }
  throw e;
}
