// Offline proofs (c2sp.org/tlog-proof@v1): an entry's index, its inclusion path, and the signed
// checkpoint it is proved against. Verifying needs the leaf hash (computed by the application from
// what was logged) and the keys trusted for the log.
import { bytesEqual, fromBase64, toBase64 } from '../encoding/bytes.js';
import { rootFromInclusionProof } from '../merkle/verify.js';
import { parseCheckpoint, type Checkpoint } from './checkpoint.js';
import { TlogError } from './errors.js';
import { openNote, type NoteVerifier, type VerifiedSignature } from './keys.js';
import { parseNote, type Note } from './note.js';

export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';
/** Inclusion paths of trees up to 2^63 leaves have at most 63 hashes. */
export const MAX_PROOF_HASHES = 63;

export interface TlogProof {
  extra?: Uint8Array;
  index: number;
  proof: Uint8Array[];
  /** The checkpoint note, verbatim. */
  checkpoint: string;
}

export function formatTlogProof(p: TlogProof): string {
  if (!Number.isSafeInteger(p.index) || p.index < 0) throw new RangeError('invalid index');
  const lines = [TLOG_PROOF_HEADER];
  if (p.extra !== undefined) lines.push(`extra ${toBase64(p.extra)}`);
  lines.push(`index ${p.index}`, ...p.proof.map(toBase64));
  return `${lines.join('\n')}\n\n${p.checkpoint}`;
}

export function parseTlogProof(input: string): TlogProof & { note: Note; parsed: Checkpoint } {
  if (typeof input !== 'string' || input.length > 2 << 20) throw new TlogError('malformed_proof', 'a tlog-proof is text of at most 2 MiB');
  const split = input.indexOf('\n\n');
  if (split < 0) throw new TlogError('malformed_proof', 'no blank line before the checkpoint');
  const head = input.slice(0, split).split('\n');
  const checkpoint = input.slice(split + 2);
  if (head[0] !== TLOG_PROOF_HEADER) throw new TlogError('malformed_proof', `the first line must be ${TLOG_PROOF_HEADER}`);
  let i = 1;
  let extra: Uint8Array | undefined;
  if (head[i]?.startsWith('extra ')) {
    const b = fromBase64(head[i]!.slice(6));
    if (!b) throw new TlogError('malformed_proof', 'extra is not base64');
    extra = b;
    i++;
  }
  const m = /^index (0|[1-9][0-9]{0,15})$/.exec(head[i] ?? '');
  if (!m || !Number.isSafeInteger(Number(m[1]))) throw new TlogError('malformed_proof', 'expected an index line');
  const proofLines = head.slice(i + 1);
  if (proofLines.length > MAX_PROOF_HASHES) throw new TlogError('malformed_proof', `more than ${MAX_PROOF_HASHES} proof hashes`);
  const proof = proofLines.map((l) => {
    const h = fromBase64(l);
    if (h?.length !== 32) throw new TlogError('malformed_proof', 'each proof line is the base64 of a 32-byte hash');
    return h;
  });
  let note: Note;
  let parsed: Checkpoint;
  try {
    note = parseNote(checkpoint);
    parsed = parseCheckpoint(note.text);
  } catch (e) {
    throw new TlogError('malformed_proof', `the checkpoint is not valid: ${(e as Error).message}`);
  }
  return { ...(extra ? { extra } : {}), index: Number(m[1]), proof, checkpoint, note, parsed };
}

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
