// @svc/core public API. Zero I/O: no network, no storage, no clock or randomness it is not handed.
export { SvcError, isSvcError, statusOf, type SvcErrorCode } from './errors.js';
export { namesFor, DEFAULT_SERVICE, isValidServiceName, type Names } from './names.js';
export * from './encoding/index.js';
export {
  ML_DSA_87,
  SLH_DSA_SHA2_256F,
  FALCON_1024,
  LENGTHS,
  keygen,
  sign,
  verifyMlDsa87,
  verifySlhDsa,
  verifyFalcon1024,
  verifyWith,
  falconMessage,
  syncVerifier,
  type AlgorithmName,
  type KeyPair,
  type RandomSource,
  type SyncVerify,
} from './crypto/algorithms.js';
export { nobleBackend, webCryptoBackend, defaultCrypto, backendFor, type CryptoBackend, type BackendAlgorithm } from './crypto/backend.js';
export { detectKind, type Kind, type Detection } from './detect.js';
export { KINDS, suffixOf, type KindEntry, type KindSuffix } from './kinds.js';
export { nestedDeeperThan } from './lib/json.js';
export {
  verifyBundle,
  verifyBundleSync,
  parseDocument,
  MAX_BODY_BYTES,
  type VerifyResponse,
  type KindVerdicts,
  type AnyVerdict,
  type RecordSummary,
} from './dispatch.js';
export type { ReceiptKey, VerifyOptions } from './verify/context.js';
export type { LogVerdict, LogPolicyChecker } from './verify/log.js';
export type { ProofVerdict, ExcerptVerdict, ProofFacts } from './verify/proof.js';
export type { AlgorithmRange } from './verify/receipt.js';
export type { BaseVerdict, Facts, Verified } from './verify/verdict.js';
export type { ReceiptVerdict, FramingVerdict, DiversityVerdict, QuestionBinding, RequestVerdict } from './verify/receipt.js';
export type { BridgeVerdict } from './verify/bridge.js';
export type { TranscriptVerdict } from './verify/transcript.js';
export type { RunVerdict, RunFacts } from './verify/run.js';
export type { ExportVerdict } from './verify/export.js';
export type { SthVerdict, ConsistencyVerdict, TreeHeadBody, HeadSummary } from './verify/sth.js';
export type { FramingFlags } from './verify/question.js';
export { MAX_TURNS } from './verify/transcript.js';
export {
  bridgeKeyId,
  bridgePayload,
  exportManifest,
  framingMessage,
  receiptMessage,
  requestSha256,
  runHash,
  treeHeadText,
  UNSIGNED_RECEIPT_MEMBERS,
} from './wire/signed.js';
export { parseTreeHead } from './verify/sth.js';
export {
  ANSWER_FORM,
  MESSAGE_FORM,
  MESSAGE_LIMITS,
  isMessageAnswer,
  messageText,
  readMessage,
  type MessageAnswer,
  type ToolCall,
} from './wire/message.js';
export type { MessageVerdict } from './verify/message.js';
export { excerptOk } from './verify/proof.js';
export * from './merkle/index.js';
export { buildRecord, checkOrg, MAX_ORG_LENGTH, type AiProvenanceRecord, type BuildRecordOptions } from './record/build.js';
export {
  AI_ACT_SUPPORT,
  AI_ACT_LOGGING,
  CODE_OF_PRACTICE,
  CODE_OF_PRACTICE_LOGGED,
  CODE_OF_PRACTICE_UNLOGGED,
  TABLE_EDITIONS,
  aiActSupport,
  type AiActSupportItem,
  type TableEdition,
} from './record/table.js';
export type { Attested } from './record/attested.js';
export { VERIFY_DISCLAIMER, RECORD_DISCLAIMER, RECORD_VERIFY_INSTRUCTIONS } from './text.js';
export { toReceiptKey, toBridgeKey, receiptKeyId, publishedKey, type BridgeKey } from './issue/keys.js';
// Envelopes (JWS, COSE) live in @svc/core/envelope; the main entry knows only their shapes.
export type {
  EnvelopeChecker,
  EnvelopeMaker,
  ReceiptEnvelopes,
  ReceiptKind,
  EnvelopeFormat,
  ScittBundleChecker,
} from './envelope/checker.js';
export type { EnvelopesVerdict, EnvelopeCheck } from './envelope/receipt.js';
export { signReceipt, signFraming, type ReceiptEnvelope, type ReceiptFields, type SignOptions } from './issue/receipt.js';
export {
  issueProof,
  issueTranscript,
  issueRun,
  issueExport,
  signTreeHead,
  issueConsistency,
  attestBridge,
  type SigningOptions,
  type ServiceOptions,
  type IssuerKeys,
  type ProofInput,
  type ProofBundle,
  type SthBundle,
} from './issue/bundles.js';
export { proofFetch, proofOf, type FetchLike, type ProofCapture } from './client/proofs.js';
