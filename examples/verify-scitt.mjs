// Check a SCITT Transparent Statement and the bundle that carries it, with the keys a server
// publishes: its answer keys as the statement's issuer, its log's receipt keys for the receipts.
//   npx svc issue --answer "Paris." --scitt answer.scitt.cose > scitt-proof.json
//   SVC_URL=http://127.0.0.1:8080 node examples/verify-scitt.mjs answer.scitt.cose scitt-proof.json
import { readFileSync } from 'node:fs';
import { verifyBundle } from '@svc/core';
import { readCoseKeySet } from '@svc/core/envelope';
import { scittChecker, verifyTransparentStatement } from '@svc/core/scitt';

const base = process.env.SVC_URL ?? 'http://127.0.0.1:8080';
const bytes = new Uint8Array(readFileSync(process.argv[2] ?? 'answer.scitt.cose'));
const bundle = readFileSync(process.argv[3] ?? 'scitt-proof.json', 'utf8');
const trustedKeys = (await (await fetch(`${base}/api/provenance/pubkey`)).json()).keys;

// Key sets are served as COSE_KeySet bytes: readCoseKeySet makes them keys.
const answerCoseKeys = readCoseKeySet(new Uint8Array(await (await fetch(`${base}/api/provenance/cose-keys?kind=answer`)).arrayBuffer()));
const scittKeys = readCoseKeySet(new Uint8Array(await (await fetch(`${base}/.well-known/scitt-keys`)).arrayBuffer()));
const v = verifyTransparentStatement(bytes, { issuers: answerCoseKeys, logs: [{ keys: scittKeys }] });
console.log(`statement: ${v.ok ? 'verifies' : 'FAILS'}, subject ${v.statement?.sub}`);
// Each receipt: alg, root (only when its signature holds), index and size as the unsigned proof
// says them (positionSigned: true only against a trusted checkpoint).
for (const r of v.receipts) console.log(`receipt ${r.alg}: ${r.ok ? 'ok' : r.error}`);

// The bundle svc issue --scitt prints carries the same statement: checked, it must hold.
const res = await verifyBundle(bundle, { trustedKeys, scitt: scittChecker({ logs: [{ keys: scittKeys }] }) });
console.log(
  `bundle: overallOk ${res.verdict.overallOk}, scitt ${JSON.stringify({ checked: res.verdict.scitt.checked, ok: res.verdict.scitt.ok })}`,
);
process.exit(v.ok && res.verdict.overallOk && res.verdict.scitt.ok ? 0 : 1);
