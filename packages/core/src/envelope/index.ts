// @svc/core/envelope: receipts as JWS and COSE_Sign1 (RFC 9964), apart from the main entry so a
// verifier that never meets envelopes carries no JOSE, CBOR or Ed25519 code. Pass `envelopeChecker`
// to verifyBundle to check the envelopes a receipt carries, and `envelopeMaker(...)` to an issuing
// function to add them.
export {
  cborEncode,
  cborDecode,
  CborError,
  MAX_CBOR_DEPTH,
  type CborDecodeOptions,
  type CborErrorCode,
  type CborValue,
} from './cbor.js';
export {
  ENVELOPE_ALGS,
  algOfCose,
  jwkThumbprint,
  publicJwk,
  readJwk,
  coseKey,
  coseKeySet,
  coseKeyThumbprint,
  readCoseKey,
  readCoseKeySet,
  type EnvelopeAlg,
  type PublicJwk,
  type Jwks,
} from './keys.js';
export { ENVELOPE_CONTEXT, mlDsa87Signer, ed25519Signer, envelopeVerify, type EnvelopeSigner } from './signers.js';
export { signJws, verifyJws, type GeneralJws, type JwsVerifyOptions } from './jws.js';
export {
  signCose1,
  verifyCose1,
  readCose1,
  coseClaims,
  sigStructure,
  COSE_HEADER,
  type CoseVerifyOptions,
  type CwtClaims,
} from './cose.js';
export type { EnvelopeErrorCode, EnvelopeVerdict, SignatureVerdict } from './verdict.js';
// Their shapes (EnvelopeChecker, EnvelopeMaker, ReceiptEnvelopes, EnvelopesVerdict, ...) are in the main entry.
export {
  makeEnvelopes,
  checkEnvelopes,
  envelopeChecker,
  envelopeMaker,
  envelopeTypes,
  kindOfContext,
} from './receipt.js';
