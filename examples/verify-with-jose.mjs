// Check an answer with panva's jose alone, no @svc/core: the JWS envelope of its receipt against
// the server's JWK Set. ML-DSA-87 where the runtime's WebCrypto has it (Node >= 24.7, Deno, Bun,
// Chromium), the Ed25519 signature elsewhere.
//   npx svc issue --answer "Paris." --envelopes jws,cose > enveloped.json
//   SVC_URL=http://127.0.0.1:8080 node examples/verify-with-jose.mjs enveloped.json
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRemoteJWKSet, generalVerify } from 'jose';

const base = process.env.SVC_URL ?? 'http://127.0.0.1:8080';
const bundle = JSON.parse(readFileSync(process.argv[2] ?? 'enveloped.json', 'utf8'));

const jwks = createRemoteJWKSet(new URL('/api/provenance/jwks.json?kind=answer', base));
const algorithms = Number(process.versions.node.split('.')[0]) >= 24 ? ['ML-DSA-87'] : ['Ed25519'];
const { payload, protectedHeader } = await generalVerify(bundle.receipt.envelopes.jws, jwks, { algorithms });
// jose checks the signature; the kind is the application's to check: an answer receipt, not a run's.
if (protectedHeader.typ !== 'vnd.svc.answer-receipt+json') throw new Error(`not an answer receipt: ${protectedHeader.typ}`);

// The payload is the signed receipt: it binds the answer by its SHA-256.
const receipt = JSON.parse(new TextDecoder().decode(payload));
const answerHash = createHash('sha256').update(bundle.answer, 'utf8').digest('hex');
console.log(`${protectedHeader.alg} signature: valid`);
console.log(`answer matches the receipt: ${receipt.answer_sha256 === answerHash}`);
