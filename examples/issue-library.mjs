// Issue signed, logged answers from a Node app with the library: open the issuer once, keep it,
// issue as answers come; answers issued together share one signed head. Then verify each against
// the keys the server publishes, and find it in the log.
//   SVC_URL=http://127.0.0.1:8080 SVC_DATA_DIR=./data node examples/issue-library.mjs
import { verifyBundle } from '@svc/core';
import { openIssuer } from '@svc/server';

const base = (process.env.SVC_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
// The same data folder (keys, SQLite ledger) or SVC_DATABASE_URL as the server: safe beside it.
const issuer = await openIssuer({ dataDir: process.env.SVC_DATA_DIR ?? './data' }); // or { databaseUrl: 'postgres://...' }
try {
  const one = await issuer.issue({ answer: 'Paris is the capital of France.', prompt: 'Capital of France?', model: 'my-model' });
  const [two, three] = await issuer.issueMany([{ answer: 'Yes.' }, { answer: 'No.', envelopes: ['jws'] }]);
  const { keys } = await (await fetch(`${base}/api/provenance/pubkey`)).json();
  for (const bundle of [one, two, three]) {
    const v = await verifyBundle(bundle, { trustedKeys: keys });
    const found = await (
      await fetch(`${base}/api/transparency/ledger/inclusion`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ answer: bundle.answer }),
      })
    ).json();
    console.log(
      `${JSON.stringify(bundle.answer)}: overallOk=${v.verdict.overallOk} signerRecognized=${v.signerRecognized} logged at ${found.index}`,
    );
    if (!v.verdict.overallOk || !v.signerRecognized || !found.found) process.exitCode = 1;
  }
} finally {
  await issuer.close(); // seals what is pending
}
