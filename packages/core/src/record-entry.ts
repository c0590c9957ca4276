/**
 * `@svc/core/record`: AI Provenance Records, evidence made from a verified bundle, never a
 * declaration of conformity. Building one, the organisation check, the disclaimers it carries, and
 * the tables it cites (the AI Act articles and the Code of Practice rows it supports, by edition).
 *
 * @module record
 */
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
export { RECORD_DISCLAIMER, RECORD_VERIFY_INSTRUCTIONS } from './text.js';
