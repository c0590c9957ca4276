// Issue an answer with the svc CLI, then verify it and prove its inclusion against a running server.
//   SVC_URL=http://127.0.0.1:8080 SVC_DATA_DIR=./data node examples/issue-and-verify.mjs
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { verifyBundle } from '@svc/core';
import { fromHex, sha256, utf8 } from '@svc/core/primitives';
import { leafHash, verifyInclusion } from '@svc/core/merkle';
import { parseTreeHead } from '@svc/core/issue';

const base = (process.env.SVC_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
// The svc command as installed in this repository (it runs on Node >= 24, as @svc/server needs).
const cli = fileURLToPath(new URL('../packages/server/bin/svc.mjs', import.meta.url));
const answer = `Example answer issued at ${new Date().toISOString()}`;

// 1. Issue: signs with the keyring in SVC_DATA_DIR and appends to the ledger.
const bundle = JSON.parse(
  execFileSync(process.execPath, [cli, 'issue', '--answer', answer, '--prompt', 'Say something'], { encoding: 'utf8' }),
);

// 2. Verify on the server, and locally against the server's published keys.
const remote = await (
  await fetch(`${base}/api/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(bundle) })
).json();
const { keys } = await (await fetch(`${base}/api/provenance/pubkey`)).json();
const local = await verifyBundle(bundle, { trustedKeys: keys });
console.log(`server verdict: overallOk=${remote.verdict.overallOk} signerRecognized=${remote.signerRecognized}`);
console.log(`local verdict:  overallOk=${local.verdict.overallOk} signerRecognized=${local.signerRecognized}`);

// 3. Inclusion: check the path against the SIGNED root, never the response's own root.
const ledger = await (await fetch(`${base}/api/transparency/ledger`)).json();
const head = await verifyBundle(ledger.signed_tree_head, { trustedKeys: keys });
const body = parseTreeHead(ledger.signed_tree_head.signed);
const inc = await (
  await fetch(`${base}/api/transparency/ledger/inclusion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ answer, tree_size: body.tree_size }),
  })
).json();
const included =
  inc.found &&
  verifyInclusion(
    inc.index,
    body.tree_size,
    leafHash(sha256(utf8(answer))),
    inc.proof.map((p) => fromHex(p)),
    fromHex(body.root_hash),
  );
console.log(`signed head recognised: ${head.signerRecognized}; included at leaf ${inc.index}: ${included}`);
process.exit(remote.verdict.overallOk && local.signerRecognized && head.signerRecognized && included ? 0 : 1);
