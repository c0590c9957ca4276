// @svc/core/scitt: SCITT (RFC 9943) Signed Statements, COSE Receipts (RFC 9942) and Transparent
// Statements, made and verified with zero I/O: the issuers' and logs' keys are passed in. Apart
// from the main entry, like the envelopes it builds on, so a verify-only bundle carries none of it.
export { SCITT_HEADER, signStatement, statementLeaf, verifyStatement, type AnswerStatement } from './statement.js';
export { VDS, makeReceipt, receiptMaker, verifyReceipt, type ReceiptContent, type ScittLog } from './receipt.js';
export { withReceipts, receiptsOf, verifyTransparentStatement, type TransparentOptions } from './transparent.js';
export { checkRegistration, type RegistrationPolicy } from './registration.js';
export { ecdsaLowS, readScittKey, scittAlgOfCose, scittVerify, type ClassicalVerify, type ScittAlg, type ScittKey } from './keys.js';
export { logKeySigner } from './sign.js';
export { ccfRoot } from './ccf.js';
export type { ScittErrorCode, StatementVerdict, ScittReceiptVerdict, TransparentVerdict } from './verdict.js';
export { scittChecker } from './checker.js';
