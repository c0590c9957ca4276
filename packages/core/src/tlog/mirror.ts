// The decisions of a tlog-mirror (c2sp.org/tlog-mirror), with no I/O: the `text/x.tlog.mirror-info`
// answer, the checks an add-entries header must pass before a byte of its packages is read, and the
// mirror's cosignature on a checkpoint it holds every entry of. What the mirror trusts is only what
// it verified itself: the pending checkpoints (log-signed, each consistent with the one before,
// checked as a witness checks them) and the packages (each proved into one of those). The ticket is
// never read here: this mirror keeps its recent pending checkpoints instead of trusting a client
// to hand one back.
import { fromBase64, toBase64 } from '../encoding/bytes.js';
import type { AddEntriesHeader } from './add-entries.js';
import { TlogError } from './errors.js';
import type { NoteSigner } from './keys.js';
import { parseNote, signatureLine } from './note.js';
import type { TreeHead } from './reader.js';

/**
 * The media type of a 202 or 409 answer to add-entries.
 *
 * @example
 * ```ts
 * const info = res.headers.get('content-type') === MIRROR_INFO_TYPE ? parseMirrorInfo(await res.text()) : null;
 * ```
 */
export const MIRROR_INFO_TYPE = 'text/x.tlog.mirror-info';

/**
 * Entries an upload may resend that the mirror already holds (`min(upload_end, next) -
 * upload_start`): one package's worth, so a client resuming from a bundle boundary is served, and
 * a client replaying the whole log is told where to start instead.
 *
 * @example
 * ```ts
 * const start = Math.max(0, next - MAX_EXCESS_ENTRIES);
 * ```
 */
export const MAX_EXCESS_ENTRIES = 256;

/**
 * A mirror-info body: a valid pending checkpoint's size, the mirror's next entry, and a ticket.
 *
 * @example
 * ```ts
 * const info: MirrorInfo = { size: 600, next: 512, ticket: new Uint8Array(0) };
 * ```
 */
export interface MirrorInfo {
  size: number;
  next: number;
  ticket: Uint8Array;
}

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

/**
 * The mirror-info body: three lines, each ending in a newline (decimal, decimal, base64).
 *
 * @example
 * ```ts
 * formatMirrorInfo({ size: 600, next: 512, ticket: new Uint8Array(0) }); // '600\n512\n\n'
 * ```
 */
export function formatMirrorInfo(i: MirrorInfo): string {
  return `${i.size}\n${i.next}\n${toBase64(i.ticket)}\n`;
}

/**
 * Read a mirror-info body, strictly: canonical decimals below 2^53, canonical padded base64.
 * Throws TlogError('malformed_request') otherwise.
 *
 * @example
 * ```ts
 * const { size, next, ticket } = parseMirrorInfo(await res.text());
 * ```
 */
export function parseMirrorInfo(text: string): MirrorInfo {
  const lines = text.split('\n');
  if (lines.length !== 4 || lines[3] !== '')
    throw new TlogError('malformed_request', 'mirror-info is three lines, each ending in a newline');
  const [size, next, ticket] = lines as [string, string, string];
  const num = (s: string, what: string): number => {
    const n = DECIMAL.test(s) ? Number(s) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw new TlogError('malformed_request', `mirror-info ${what} is not a decimal below 2^53`);
    return n;
  };
  const t = fromBase64(ticket);
  if (t === null) throw new TlogError('malformed_request', 'mirror-info ticket is not canonical base64');
  return { size: num(size, 'size'), next: num(next, 'next entry'), ticket: t };
}

/**
 * What a mirror knows of one log when an upload arrives: any copy will do (tlog-mirror lets the
 * check act on stale state), as every value here only grows.
 *
 * @example
 * ```ts
 * const state: MirrorLogState = { pending: [{ size: 600, root }], mirrored: { size: 0, root: emptyRoot() }, next: 0 };
 * ```
 */
export interface MirrorLogState {
  /** The pending checkpoints it accepts as upload_end, the current one first (empty: none yet). */
  pending: readonly TreeHead[];
  /** The mirror checkpoint: the tree it holds whole and has cosigned (size 0 before any). */
  mirrored: TreeHead;
  /** The first entry neither mirrored nor pending. */
  next: number;
}

/**
 * The answer to an add-entries header: go on, proving each package into `checkpoint`, or refuse.
 *
 * @example
 * ```ts
 * const c = checkUpload(header, state);
 * if (!c.ok) return new Response(c.body, { status: c.status, headers: { 'content-type': c.contentType } });
 * ```
 */
export type UploadCheck = { ok: true; checkpoint: TreeHead } | { ok: false; status: 404 | 409 | 422; body: string; contentType: string };

const plain = (status: 404 | 422, body: string): UploadCheck => ({
  ok: false,
  status,
  body: `${body}\n`,
  contentType: 'text/plain; charset=utf-8',
});

// WF-MIRROR-UPLOAD
/**
 * Check an add-entries header against the log's state (undefined: a log this mirror does not
 * mirror), in tlog-mirror's order: 404 unknown log; 422 no pending checkpoint yet; 409 (with
 * mirror-info) for an upload_end that is neither a pending size it keeps nor the mirror
 * checkpoint's, one below the mirror checkpoint, an upload_start past the next entry, or more than
 * `maxExcess` entries it already holds.
 *
 * @example
 * ```ts
 * const c = checkUpload({ origin, start: 0, end: 600, ticket }, await store.state(origin));
 * ```
 */
export function checkUpload(h: AddEntriesHeader, state: MirrorLogState | undefined, maxExcess = MAX_EXCESS_ENTRIES): UploadCheck {
  if (!state) return plain(404, 'unknown log origin');
  const current = state.pending[0];
  if (!current) return plain(422, 'no pending checkpoint of this log yet: add-checkpoint first');
  const head = h.end === state.mirrored.size && h.end > 0 ? state.mirrored : state.pending.find((p) => p.size === h.end);
  const conflict = (size: number): UploadCheck => ({
    ok: false,
    status: 409,
    body: formatMirrorInfo({ size, next: state.next, ticket: new Uint8Array(0) }),
    contentType: MIRROR_INFO_TYPE,
  });
  if (!head || h.end < state.mirrored.size) return conflict(current.size);
  if (h.start > state.next || Math.min(h.end, state.next) - h.start > maxExcess) return conflict(h.end);
  return { ok: true, checkpoint: { size: head.size, root: head.root } };
}

/**
 * The mirror's cosignature on a pending checkpoint it now holds whole: its lines (the 200 body of
 * add-entries, as a witness's add-checkpoint answer) and the checkpoint as it will serve it (the
 * log's lines, then its own). `now` is in seconds, never 0.
 *
 * @example
 * ```ts
 * const { lines, checkpoint } = mirrorCosign(pending.checkpoint, signers, Math.floor(Date.now() / 1000));
 * ```
 */
export function mirrorCosign(pending: string, signers: readonly NoteSigner[], now: number): { lines: string; checkpoint: string } {
  if (!Number.isSafeInteger(now) || now <= 0) throw new RangeError('the mirror clock must give a positive time in seconds');
  const note = parseNote(pending);
  const own = new Set(signers.map((s) => s.name));
  // A line under the mirror's own name in what it stored would be one it did not make now.
  const kept = note.signatures
    .filter((s) => !own.has(s.name))
    .map(signatureLine)
    .join('');
  const lines = signers.map((s) => signatureLine(s.sign(note.text, now))).join('');
  return { lines, checkpoint: `${note.text}\n${kept}${lines}` };
}
