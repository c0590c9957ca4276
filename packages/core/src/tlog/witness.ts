// A witness's decision (c2sp.org/tlog-witness add-checkpoint), with no I/O: given the request body,
// the logs it witnesses, the latest checkpoint it cosigned for that origin and its own keys, the
// answer and, on success, the new state to persist. The caller must compare-and-swap that state
// against the one it read (the race the spec describes), and answer only once it is stored.
import { bytesEqual, fromBase64, toBase64 } from '../encoding/bytes.js';
import { emptyRoot } from '../merkle/hash.js';
import { verifyConsistency } from '../merkle/verify.js';
import { parseCheckpoint, type Checkpoint } from './checkpoint.js';
import { TlogError } from './errors.js';
import { openNote, type NoteSigner, type NoteVerifier } from './keys.js';
import { parseNote, signatureLine } from './note.js';
import { MAX_PROOF_HASHES } from './proof.js';

/**
 * The largest add-checkpoint body a witness reads.
 *
 * @example
 * ```ts
 * if (body.byteLength > MAX_ADD_CHECKPOINT_BYTES) return new Response(null, { status: 413 });
 * ```
 */
export const MAX_ADD_CHECKPOINT_BYTES = 1 << 20;

/**
 * An add-checkpoint request (C2SP tlog-witness): the size the witness last saw, a consistency proof, and the new checkpoint.
 *
 * @example
 * ```ts
 * const req: AddCheckpointRequest = { oldSize: 0, proof: [], checkpoint: signedCheckpointText };
 * await fetch(`${witness}/add-checkpoint`, { method: 'POST', body: formatAddCheckpoint(req) });
 * ```
 */
export interface AddCheckpointRequest {
  oldSize: number;
  proof: Uint8Array[];
  /** The checkpoint note as submitted. */
  checkpoint: string;
}

/** A witness request body as text: at most 1 MiB of UTF-8 (add-checkpoint and sign-subtree alike). */
export function requestText(body: Uint8Array | string): string {
  if (typeof body === 'string') return body;
  if (body.length > MAX_ADD_CHECKPOINT_BYTES) throw new TlogError('malformed_request', 'request body over 1 MiB');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new TlogError('malformed_request', 'request body is not UTF-8');
  }
}

/**
 * Parse an add-checkpoint body: `old N`, proof lines, an empty line, the checkpoint.
 *
 * @example
 * ```ts
 * const req = parseAddCheckpoint(await request.text()); // throws TlogError when malformed
 * ```
 */
export function parseAddCheckpoint(body: Uint8Array | string): AddCheckpointRequest {
  const s = requestText(body);
  const split = s.indexOf('\n\n');
  if (split < 0) throw new TlogError('malformed_request', 'no empty line before the checkpoint');
  const head = s.slice(0, split).split('\n');
  const m = /^old (0|[1-9][0-9]{0,15})$/.exec(head[0] ?? '');
  if (!m || !Number.isSafeInteger(Number(m[1]))) throw new TlogError('malformed_request', 'the first line must be "old <size>"');
  const lines = head.slice(1);
  if (lines.length > MAX_PROOF_HASHES) throw new TlogError('malformed_request', `more than ${MAX_PROOF_HASHES} consistency proof lines`);
  const proof = lines.map((l) => {
    const h = fromBase64(l);
    if (h?.length !== 32) throw new TlogError('malformed_request', 'each proof line is the base64 of a 32-byte hash');
    return h;
  });
  return { oldSize: Number(m[1]), proof, checkpoint: s.slice(split + 2) };
}

/**
 * The body of an add-checkpoint request.
 *
 * @example
 * ```ts
 * const body = formatAddCheckpoint({ oldSize: 8, proof: consistencyProof(tree, 8, 10), checkpoint });
 * ```
 */
export function formatAddCheckpoint(r: AddCheckpointRequest): string {
  return `old ${r.oldSize}\n${r.proof.map((h) => `${toBase64(h)}\n`).join('')}\n${r.checkpoint}`;
}

/**
 * What a witness keeps per log: the last size and root it cosigned, and that checkpoint.
 *
 * @example
 * ```ts
 * const state: WitnessState | null = store.get(origin) ?? null;
 * ```
 */
export interface WitnessState {
  size: number;
  root: Uint8Array;
  /** The checkpoint as cosigned: the log's verified lines and the witness's own. */
  checkpoint: string;
}

/**
 * A witness's answer to add-checkpoint: 200 with the cosignature and the new state, or an error status and text.
 *
 * @example
 * ```ts
 * const a: WitnessAnswer = decideAddCheckpoint(body, logsByOrigin, stateOf, [witnessSigner], nowSeconds);
 * if (a.status === 200) store.set(a.origin, a.state);
 * ```
 */
export type WitnessAnswer =
  | { status: 200; body: string; origin: string; state: WitnessState }
  | { status: 400 | 403 | 404 | 409 | 422; body: string; contentType: string; origin?: string };

const text = (status: 400 | 403 | 404 | 422, body: string, origin?: string): WitnessAnswer => ({
  status,
  body: `${body}\n`,
  contentType: 'text/plain; charset=utf-8',
  ...(origin ? { origin } : {}),
});

// WF-WITNESS
/**
 * Decide an add-checkpoint request. `logs` maps an origin to the keys trusted for it; `current`
 * is the latest state cosigned for that origin (null: none); `now` is the time in seconds
 * (non-zero: the cosignature's timestamp).
 *
 * @example
 * ```ts
 * const answer = decideAddCheckpoint(body, (origin) => logs.get(origin), (origin) => states.get(origin) ?? null, [signer], Math.floor(Date.now() / 1000));
 * return new Response(answer.body, { status: answer.status });
 * ```
 */
export function decideAddCheckpoint(
  body: Uint8Array | string,
  logs: (origin: string) => readonly NoteVerifier[] | undefined,
  current: (origin: string) => WitnessState | null,
  signers: readonly NoteSigner[],
  now: number,
): WitnessAnswer {
  let req: AddCheckpointRequest;
  let c: Checkpoint;
  try {
    req = parseAddCheckpoint(body);
    c = parseCheckpoint(parseNote(req.checkpoint).text);
  } catch (e) {
    return text(400, e instanceof TlogError ? e.message : 'malformed request');
  }
  const keys = logs(c.origin);
  if (!keys || keys.length === 0) return text(404, 'unknown log origin');
  let opened: ReturnType<typeof openNote>;
  try {
    opened = openNote(req.checkpoint, keys);
  } catch {
    return text(403, 'no valid signature by a key trusted for this origin', c.origin);
  }
  if (req.oldSize > c.size) return text(400, 'old size is larger than the checkpoint size', c.origin);
  const cur = current(c.origin);
  const curSize = cur?.size ?? 0;
  if (req.oldSize !== curSize) return { status: 409, body: `${curSize}\n`, contentType: 'text/x.tlog.size', origin: c.origin };
  if (c.size === 0 && !bytesEqual(c.root, emptyRoot())) return text(422, 'a checkpoint of size zero must have the empty root', c.origin);
  if (req.oldSize === 0) {
    if (req.proof.length !== 0) return text(422, 'a proof from size zero must be empty', c.origin);
  } else if (req.oldSize === c.size) {
    if (!bytesEqual(cur!.root, c.root)) return text(422, 'a different root for the size already cosigned', c.origin);
  } else if (!verifyConsistency(req.oldSize, c.size, cur!.root, c.root, req.proof)) {
    return text(422, 'the consistency proof does not verify', c.origin);
  }
  if (!Number.isSafeInteger(now) || now <= 0) throw new RangeError('the witness clock must give a positive time in seconds');
  const lines = signers.map((s) => signatureLine(s.sign(opened.note.text, now))).join('');
  // What the witness serves to monitors: the log's lines it verified, then its own.
  const logLines = opened.note.signatures
    .filter((s) => keys.some((k) => k.name === s.name && k.id === s.id))
    .map(signatureLine)
    .join('');
  return {
    status: 200,
    body: lines,
    origin: c.origin,
    state: { size: c.size, root: c.root, checkpoint: `${opened.note.text}\n${logLines}${lines}` },
  };
}
