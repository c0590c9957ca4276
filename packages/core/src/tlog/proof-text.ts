// The c2sp.org/tlog-proof@v1 text: parse and write, with no signature code, so the main entry
// (verifyBundle's log layer) reads proofs without carrying the signature algorithms.
import { fromBase64, toBase64 } from '../encoding/bytes.js';
import { parseCheckpoint, type Checkpoint } from './checkpoint.js';
import { TlogError } from './errors.js';
import { parseNote, type Note } from './note.js';

/**
 * The first line of every tlog-proof file.
 *
 * @example
 * ```ts
 * file.startsWith(TLOG_PROOF_HEADER); // true
 * ```
 */
export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';
/** Inclusion paths of trees up to 2^63 leaves have at most 63 hashes. */
export const MAX_PROOF_HASHES = 63;

/**
 * A c2sp.org/tlog-proof file: leaf index, inclusion path, the checkpoint note and optional extra data.
 *
 * @example
 * ```ts
 * const p: TlogProof = { index: 2, proof: inclusionProof(tree, 2, 8), checkpoint: signedCheckpointText };
 * const file = formatTlogProof(p);
 * ```
 */
export interface TlogProof {
  extra?: Uint8Array;
  index: number;
  proof: Uint8Array[];
  /** The checkpoint note, verbatim. */
  checkpoint: string;
}

/**
 * The text of a tlog-proof file.
 *
 * @example
 * ```ts
 * const file = formatTlogProof({ index, proof, checkpoint });
 * ```
 */
export function formatTlogProof(p: TlogProof): string {
  if (!Number.isSafeInteger(p.index) || p.index < 0) throw new RangeError('invalid index');
  const lines = [TLOG_PROOF_HEADER];
  if (p.extra !== undefined) lines.push(`extra ${toBase64(p.extra)}`);
  lines.push(`index ${p.index}`, ...p.proof.map(toBase64));
  return `${lines.join('\n')}\n\n${p.checkpoint}`;
}

/**
 * Parse a tlog-proof file (its syntax only; verifyTlogProof checks it); throws TlogError when malformed.
 *
 * @example
 * ```ts
 * const { index, proof, parsed } = parseTlogProof(file);
 * ```
 */
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
