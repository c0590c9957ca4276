// The witness's sign-subtree call (c2sp.org/tlog-witness, optional), with no I/O. What is signed: the
// cosigned_message of (cosigner, 0, origin, start, end, hash), nothing else; a subtree's signature
// says it is consistent with every view of the log the cosigner has seen, never that it is the
// newest. Who may ask: anyone holding a checkpoint this witness cosigned; the witness signs only a
// subtree whose consistency proof leads to that checkpoint's root, so it never signs a hash it could
// not have checked.
import { fromBase64, toBase64 } from '../encoding/bytes.js';
import { isSubtree, verifySubtreeProof } from '../merkle/subtree.js';
import { parseCheckpoint, type Checkpoint } from './checkpoint.js';
import { TlogError } from './errors.js';
import { openNote, type NoteSigner, type NoteVerifier } from './keys.js';
import { parseNote, signatureLine, type NoteSignature } from './note.js';
import type { SignedSubtree } from './signatures.js';
import { checkSubtreeSignature } from './subtree-signature.js';
import { requestText } from './witness.js';

/**
 * At most this many consistency proof lines in a sign-subtree request (tlog-witness: 63).
 *
 * @example
 * ```ts
 * if (proof.length > MAX_SUBTREE_PROOF_LINES) throw new Error('a witness refuses this request with 400');
 * ```
 */
export const MAX_SUBTREE_PROOF_LINES = 63;

/**
 * The subtree cosignatures among `lines` (signature lines, each ending in a newline) by the given
 * keys: as for a note, lines of other keys are ignored, every line of a given key must verify, and
 * at least one must. Throws TlogError('unverified') otherwise, 'malformed_note' for lines that are
 * not signature lines.
 *
 * @example
 * ```ts
 * const ok = openSubtreeSignatures(await response.text(), { origin, start: 8, end: 13, hash }, [witnessKey]);
 * ```
 */
export function openSubtreeSignatures(lines: string, s: SignedSubtree, keys: readonly NoteVerifier[]): NoteSignature[] {
  // The lines alone have the grammar of a note's signature block: parse them as one.
  const { signatures } = parseNote(`subtree\n\n${lines}`);
  const verified: NoteSignature[] = [];
  for (const sig of signatures) {
    const key = keys.find((k) => k.name === sig.name && k.id === sig.id);
    if (!key) continue;
    if (!checkSubtreeSignature(key.type, key.name, key.publicKey, s, sig.signature, key.raw).ok)
      throw new TlogError('unverified', `the subtree signature by ${key.name} does not verify`);
    verified.push(sig);
  }
  if (verified.length === 0) throw new TlogError('unverified', 'no subtree signature by a known key');
  return verified;
}

/**
 * A sign-subtree request (tlog-witness): the subtree, its hash, the subtree consistency proof to
 * the checkpoint, and a checkpoint the witness cosigned.
 *
 * @example
 * ```ts
 * const body = formatSignSubtree({ start: 8, end: 13, hash, proof: subtreeProof(tree, 8, 13, 14), checkpoint });
 * ```
 */
export interface SignSubtreeRequest {
  start: number;
  end: number;
  hash: Uint8Array;
  proof: Uint8Array[];
  checkpoint: string;
}

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;
const hashLine = (l: string | undefined, what: string): Uint8Array => {
  const h = l === undefined ? null : fromBase64(l);
  if (h?.length !== 32) throw new TlogError('malformed_request', `${what} is the base64 of a 32-byte hash`);
  return h;
};

/**
 * Parse a sign-subtree body: `subtree <start> <end>`, the subtree hash, up to 63 proof lines, an
 * empty line, the checkpoint. Throws TlogError('malformed_request'); whether the range is a
 * subtree of the checkpoint is the caller's check.
 *
 * @example
 * ```ts
 * const req = parseSignSubtree(await request.text());
 * ```
 */
export function parseSignSubtree(body: Uint8Array | string): SignSubtreeRequest {
  const s = requestText(body);
  const split = s.indexOf('\n\n');
  if (split < 0) throw new TlogError('malformed_request', 'no empty line before the checkpoint');
  const head = s.slice(0, split).split('\n');
  const range = (head[0] ?? '').split(' ');
  if (range.length !== 3 || range[0] !== 'subtree' || !DECIMAL.test(range[1]!) || !DECIMAL.test(range[2]!))
    throw new TlogError('malformed_request', 'the first line must be "subtree <start> <end>"');
  const [start, end] = [Number(range[1]), Number(range[2])];
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end))
    throw new TlogError('malformed_request', 'start and end must be below 2^53');
  const hash = hashLine(head[1], 'the second line');
  const lines = head.slice(2);
  if (lines.length > MAX_SUBTREE_PROOF_LINES)
    throw new TlogError('malformed_request', `more than ${MAX_SUBTREE_PROOF_LINES} consistency proof lines`);
  return { start, end, hash, proof: lines.map((l) => hashLine(l, 'each proof line')), checkpoint: s.slice(split + 2) };
}

/**
 * The body of a sign-subtree request.
 *
 * @example
 * ```ts
 * await fetch(`${witness}/sign-subtree`, { method: 'POST', body: formatSignSubtree(req) });
 * ```
 */
export function formatSignSubtree(r: SignSubtreeRequest): string {
  const lines = [`subtree ${r.start} ${r.end}`, toBase64(r.hash), ...r.proof.map(toBase64)];
  return `${lines.join('\n')}\n\n${r.checkpoint}`;
}

/**
 * A witness's answer to sign-subtree: 200 with its subtree cosignature lines, or an error status and text.
 *
 * @example
 * ```ts
 * const a: SignSubtreeAnswer = decideSignSubtree(body, (o) => logs.get(o), witnessSigners);
 * ```
 */
export type SignSubtreeAnswer = { status: 200 | 400 | 403 | 404 | 422; body: string; origin?: string; subtree?: SignedSubtree };

const answer = (status: 400 | 403 | 404 | 422, body: string, origin?: string): SignSubtreeAnswer => ({
  status,
  body: `${body}\n`,
  ...(origin ? { origin } : {}),
});

// WF-SIGN-SUBTREE
/**
 * Decide a sign-subtree request. `known` says whether the witness witnesses an origin; `signers`
 * are its own keys: the checkpoint must carry a valid cosignature by one of them (any type), and
 * those that can sign a subtree sign it. In the spec's order of checks: 400 for a malformed body
 * or a range that is not a subtree ending within the checkpoint, 404 for an origin it does not
 * witness, 403 without its own valid cosignature, 422 when the proof does not lead to the
 * checkpoint's root.
 *
 * @example
 * ```ts
 * const a = decideSignSubtree(body, (origin) => logs.has(origin), witness.signers);
 * return new Response(a.body, { status: a.status });
 * ```
 */
export function decideSignSubtree(
  body: Uint8Array | string,
  known: (origin: string) => boolean,
  signers: readonly NoteSigner[],
): SignSubtreeAnswer {
  let req: SignSubtreeRequest;
  let c: Checkpoint;
  try {
    req = parseSignSubtree(body);
    c = parseCheckpoint(parseNote(req.checkpoint).text);
  } catch (e) {
    return answer(400, e instanceof TlogError ? e.message : 'malformed request');
  }
  if (!isSubtree(req.start, req.end)) return answer(400, '[start, end) is not a subtree', c.origin);
  if (req.end > c.size) return answer(400, 'the subtree ends past the checkpoint', c.origin);
  if (!known(c.origin)) return answer(404, 'unknown log origin');
  try {
    openNote(req.checkpoint, signers);
  } catch {
    return answer(403, "the checkpoint carries no valid cosignature of this witness's", c.origin);
  }
  if (!verifySubtreeProof(req.start, req.end, c.size, req.proof, req.hash, c.root))
    return answer(422, 'the subtree consistency proof does not verify', c.origin);
  const subtree: SignedSubtree = { origin: c.origin, start: req.start, end: req.end, hash: req.hash };
  const lines = signers.filter((s) => s.signSubtree).map((s) => signatureLine(s.signSubtree!(subtree)));
  return { status: 200, body: lines.join(''), origin: c.origin, subtree };
}
