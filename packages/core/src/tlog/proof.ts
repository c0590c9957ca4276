// Offline proofs (c2sp.org/tlog-proof@v1): an entry's index, its inclusion path, and the signed
// checkpoint it is proved against. Verifying needs the leaf hash (computed by the application from
// what was logged) and the keys trusted for the log.
import { bytesEqual } from '../encoding/bytes.js';
import { rootFromInclusionProof } from '../merkle/verify.js';
import type { Checkpoint } from './checkpoint.js';
import { TlogError } from './errors.js';
import { openNote, type NoteVerifier, type VerifiedSignature } from './keys.js';
import { parseTlogProof } from './proof-text.js';

export { TLOG_PROOF_HEADER, MAX_PROOF_HASHES, formatTlogProof, parseTlogProof, type TlogProof } from './proof-text.js';

/**
 * What verifyTlogProof established: the index, the checkpoint, the log's and the cosigners' verified signatures.
 *
 * @example
 * ```ts
 * const r: TlogProofResult = verifyTlogProof(file, leafHash(entry), { origin: 'example.com/log', logKeys: [logKey] });
 * console.log(r.checkpoint.size, r.cosigners.length);
 * ```
 */
export interface TlogProofResult {
  index: number;
  checkpoint: Checkpoint;
  /** The log's signatures that verified (at least one, or the proof is refused). */
  log: VerifiedSignature[];
  /** Other known keys' signatures that verified (witnesses); the policy on them is the caller's. */
  cosigners: VerifiedSignature[];
  extra?: Uint8Array;
}

/**
 * Verify a tlog-proof for `leafHash` (RFC 6962 leaf hash of the logged entry): the checkpoint's
 * origin must be `origin` and signed by one of `logKeys` (named for that origin); every known line
 * must verify; the inclusion path must lead from the leaf to the checkpoint's root.
 *
 * @example
 * ```ts
 * const r = verifyTlogProof(file, leafHash(entryBytes), { origin: 'example.com/log', logKeys: [logKey], cosigners: witnessKeys(policy) });
 * ```
 */
export function verifyTlogProof(
  input: string,
  leafHash: Uint8Array,
  opts: { origin: string; logKeys: readonly NoteVerifier[]; cosigners?: readonly NoteVerifier[] },
): TlogProofResult {
  const p = parseTlogProof(input);
  if (p.parsed.origin !== opts.origin)
    throw new TlogError('unverified', `checkpoint origin ${JSON.stringify(p.parsed.origin)} is not the log's`);
  const logKeys = opts.logKeys.filter((k) => k.name === opts.origin);
  const opened = openNote(p.note, [...logKeys, ...(opts.cosigners ?? [])]);
  const isLog = (v: VerifiedSignature) => logKeys.some((k) => k.vkey === v.vkey);
  const log = opened.verified.filter(isLog);
  if (log.length === 0) throw new TlogError('unverified', 'the checkpoint carries no verified signature of the log');
  const c = p.parsed;
  const root = leafHash.length === 32 && p.index < c.size ? rootFromInclusionProof(p.index, c.size, leafHash, p.proof) : null;
  if (!root || !bytesEqual(root, c.root)) throw new TlogError('proof_failed', `entry ${p.index} is not included under the checkpoint root`);
  return {
    index: p.index,
    checkpoint: c,
    log,
    cosigners: opened.verified.filter((v) => !isLog(v)),
    ...(p.extra ? { extra: p.extra } : {}),
  };
}
