// Checkpoints (c2sp.org/tlog-checkpoint): a note text of origin, tree size and base64 root hash,
// then optional extension lines. This log writes none; a reader keeps whatever it is given.
import { fromBase64, toBase64 } from '../encoding/bytes.js';
import { TlogError } from './errors.js';

/**
 * A parsed checkpoint body: origin, tree size, root hash and extension lines.
 *
 * @example
 * ```ts
 * const c: Checkpoint = parseCheckpoint('example.com/log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n');
 * ```
 */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  /** Extension lines (without newlines); opaque, and not signed by subtree/v1 cosignatures. */
  extensions: string[];
}

/**
 * The checkpoint body text (C2SP tlog-checkpoint): origin, size, base64 root, extension lines.
 *
 * @example
 * ```ts
 * formatCheckpoint({ origin: 'example.com/log', size: 3, root, extensions: [] }); // 'example.com/log\n3\n<base64 root>\n'
 * ```
 */
export function formatCheckpoint(c: Checkpoint): string {
  if (!c.origin || c.origin.includes('\n')) throw new TlogError('malformed_checkpoint', 'invalid origin');
  if (!Number.isSafeInteger(c.size) || c.size < 0) throw new TlogError('malformed_checkpoint', 'invalid tree size');
  if (c.root.length !== 32) throw new TlogError('malformed_checkpoint', 'root hash must be 32 bytes');
  for (const e of c.extensions)
    if (!e || e.includes('\n')) throw new TlogError('malformed_checkpoint', 'extension lines are non-empty single lines');
  return `${c.origin}\n${c.size}\n${toBase64(c.root)}\n${c.extensions.map((e) => `${e}\n`).join('')}`;
}

/**
 * Parse a checkpoint from a note's text (signatures already split off).
 *
 * @example
 * ```ts
 * const c = parseCheckpoint(openNote(noteText, [logKey]).note.text);
 * console.log(c.origin, c.size);
 * ```
 */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith('\n')) throw new TlogError('malformed_checkpoint', 'checkpoint text must end with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw new TlogError('malformed_checkpoint', 'a checkpoint has at least three lines');
  const [origin, sizeText, rootText, ...extensions] = lines as [string, string, string, ...string[]];
  if (!origin) throw new TlogError('malformed_checkpoint', 'empty origin line');
  if (!/^(0|[1-9][0-9]{0,15})$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText)))
    throw new TlogError('malformed_checkpoint', 'tree size must be a decimal integer without leading zeros');
  const root = fromBase64(rootText);
  if (root?.length !== 32) throw new TlogError('malformed_checkpoint', 'root hash must be the base64 of 32 bytes');
  if (extensions.some((e) => e === '')) throw new TlogError('malformed_checkpoint', 'extension lines must be non-empty');
  return { origin, size: Number(sizeText), root, extensions };
}
