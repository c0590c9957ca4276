/**
 * `@svc/core/issue`: making what the main entry verifies. The issuers (an answer, a transcript, an
 * autopilot run, an export, a signed tree head, a consistency bundle), the receipt and framing
 * signers, the published key forms, and the exact signed bytes of every format (one definition
 * each: the verifier reads the same functions).
 *
 * @module issue
 */
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
  type RunBundle,
  type ExportBundle,
  type TranscriptBundle,
  type ConsistencyBundle,
} from './issue/bundles.js';
export { signReceipt, signFraming, type ReceiptEnvelope, type ReceiptFields, type SignOptions } from './issue/receipt.js';
export { toReceiptKey, toBridgeKey, receiptKeyId, publishedKey } from './issue/keys.js';
export type { BridgeKey } from './wire/keys.js';
export type { KeyPair, RandomSource } from './crypto/algorithms.js';
export type { EnvelopeMaker, ReceiptEnvelopes, ReceiptKind, EnvelopeFormat } from './envelope/checker.js';
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
export { parseTreeHead, type TreeHeadBody } from './verify/sth.js';
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
export { MAX_TURNS } from './verify/transcript.js';
