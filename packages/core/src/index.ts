// @svc/core public API: what verifying needs. Zero I/O: no network, no storage, no clock or
// randomness it is not handed. Making documents is @svc/core/issue; records @svc/core/record; bytes,
// hashes and the algorithms @svc/core/primitives; the tree @svc/core/merkle; C2SP formats
// @svc/core/tlog; envelopes @svc/core/envelope; SCITT @svc/core/scitt; schemas @svc/core/schemas.
export { SvcError, isSvcError, statusOf, type SvcErrorCode } from './errors.js';
export { namesFor, DEFAULT_SERVICE, isValidServiceName, type Names } from './names.js';
export { nobleBackend, webCryptoBackend, defaultCrypto, type CryptoBackend, type BackendAlgorithm } from './crypto/backend.js';
export { detectKind, type Kind, type Detection } from './detect.js';
export { KINDS, suffixOf, type KindEntry, type KindSuffix } from './kinds.js';
export {
  verifyBundle,
  verifyBundleSync,
  parseDocument,
  MAX_BODY_BYTES,
  type VerifyResponse,
  type VerifyResponseBase,
  type KindVerdicts,
  type RecordSummary,
} from './dispatch.js';
export type { ReceiptKey, BridgeKey, VerifyOptions } from './verify/context.js';
export type { LogVerdict, LogPolicyChecker } from './verify/log.js';
export type { ProofVerdict, ExcerptVerdict } from './verify/proof.js';
export type {
  AlgorithmRange,
  ReceiptVerdict,
  FramingVerdict,
  DiversityVerdict,
  QuestionBinding,
  RequestVerdict,
} from './verify/receipt.js';
export type { BridgeVerdict } from './verify/bridge.js';
export type { TranscriptVerdict } from './verify/transcript.js';
export type { RunVerdict } from './verify/run.js';
export type { ExportVerdict } from './verify/export.js';
export type { SthVerdict, ConsistencyVerdict, HeadSummary } from './verify/sth.js';
export type { FramingFlags } from './verify/question.js';
export type { MessageVerdict } from './verify/message.js';
// Envelopes (JWS, COSE) live in @svc/core/envelope; the main entry knows only the checkers' shapes.
export type { EnvelopeChecker, ScittBundleChecker } from './envelope/checker.js';
export type { EnvelopesVerdict, EnvelopeCheck } from './envelope/receipt.js';
export { VERIFY_DISCLAIMER } from './text.js';
export type { JsonObject } from './lib/json.js';
export { proofFetch, proofOf, type FetchLike, type ProofCapture } from './client/proofs.js';
// What a capture holds (made by @svc/core/issue's issuers).
export type { ProofBundle } from './issue/bundles.js';
