// @svc/core/tlog: the C2SP transparency-log formats, zero I/O. Signed notes and verifier keys,
// checkpoints, the cosignature types (Ed25519, ML-DSA-44 subtree/v1, this project's ML-DSA-87),
// tile arithmetic and an authenticating tile reader over an injected fetch, and tlog-proof files.
export { TlogError, isTlogError, type TlogErrorCode } from './errors.js';
export {
  parseNote,
  formatNote,
  signatureLine,
  keyId,
  isKeyName,
  MAX_NOTE_BYTES,
  MAX_NOTE_SIGNATURES,
  type Note,
  type NoteSignature,
} from './note.js';
export { parseCheckpoint, formatCheckpoint, type Checkpoint } from './checkpoint.js';
export {
  SIGNATURE_TYPES,
  MLDSA87_IDENTIFIER,
  signedMessage,
  subtreeMessage,
  cosignedMessage,
  cosignatureV1Message,
  checkSignature,
  makeSignature,
  logKeygen,
  type SignatureType,
  type SignatureTypeSpec,
  type LogKeyPair,
  type RawSign,
  type RawVerify,
  type SignedSubtree,
} from './signatures.js';
export {
  parseVkey,
  noteVerifier,
  noteSigner,
  signNote,
  openNote,
  type NoteVerifier,
  type NoteSigner,
  type VerifiedSignature,
  type OpenedNote,
} from './keys.js';
export {
  TILE_HEIGHT,
  TILE_WIDTH,
  tileWidth,
  tileNodes,
  tilePath,
  parseTilePath,
  encodeTile,
  decodeTile,
  encodeEntryBundle,
  decodeEntryBundle,
  type TileId,
} from './tiles.js';
export { TileReader, type FetchTile, type TreeHead } from './reader.js';
export { formatTlogProof, parseTlogProof, verifyTlogProof, TLOG_PROOF_HEADER, type TlogProof, type TlogProofResult } from './proof.js';
export { parsePolicy, quorumMet, witnessKeys, MAX_POLICY_ENTRIES, type Policy, type PolicyEntry } from './policy.js';
export {
  parseAddCheckpoint,
  formatAddCheckpoint,
  decideAddCheckpoint,
  MAX_ADD_CHECKPOINT_BYTES,
  type AddCheckpointRequest,
  type WitnessState,
  type WitnessAnswer,
} from './witness.js';
export { logPolicy } from './policy-checker.js';
export { makeSubtreeSignature, checkSubtreeSignature, type SubtreeSignatureType } from './subtree-signature.js';
export {
  openSubtreeSignatures,
  parseSignSubtree,
  formatSignSubtree,
  decideSignSubtree,
  MAX_SUBTREE_PROOF_LINES,
  type SignSubtreeRequest,
  type SignSubtreeAnswer,
} from './sign-subtree.js';
export {
  AddEntriesReader,
  formatAddEntries,
  packageRanges,
  verifyPackage,
  PACKAGE_ENTRIES,
  type AddEntriesHeader,
  type PackageRange,
  type EntryPackage,
} from './add-entries.js';
export {
  MIRROR_INFO_TYPE,
  MAX_EXCESS_ENTRIES,
  formatMirrorInfo,
  parseMirrorInfo,
  checkUpload,
  mirrorCosign,
  type MirrorInfo,
  type MirrorLogState,
  type UploadCheck,
} from './mirror.js';
