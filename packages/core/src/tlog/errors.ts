/**
 * The refusals of the transparency-log formats (c2sp.org signed-note, tlog-checkpoint, tlog-tiles,
 * tlog-proof). A closed union, so `switch (err.code)` narrows.
 *
 * | code                  | when                                                                 |
 * | --------------------- | -------------------------------------------------------------------- |
 * | `malformed_note`      | not a signed note (encoding, control characters, signature lines)   |
 * | `malformed_vkey`      | not a verifier key of a known type, or its key ID is not the hash    |
 * | `malformed_checkpoint`| the note text is not a checkpoint (origin, size, root lines)         |
 * | `unverified`          | no signature by a known key, or one by a known key failed           |
 * | `malformed_tile`      | a tile or entry bundle of the wrong length or shape, a bad tile path |
 * | `malformed_proof`     | not a c2sp.org/tlog-proof@v1 text                                    |
 * | `proof_failed`        | a proof that does not lead to the signed root                        |
 * | `inconsistent`        | two checkpoints that cannot both be views of one append-only log     |
 * | `malformed_policy`    | not a c2sp.org/tlog-policy file                                      |
 * | `malformed_request`   | not a tlog-witness add-checkpoint body                               |
 *
 * @example
 * ```ts
 * try {
 *   parseNote(text);
 * } catch (e) {
 *   if (isTlogError(e)) {
 *     const code: TlogErrorCode = e.code;
 *     console.log(code); // 'malformed_note'
 *   }
 * }
 * ```
 */
export type TlogErrorCode =
  | 'malformed_note'
  | 'malformed_vkey'
  | 'malformed_checkpoint'
  | 'unverified'
  | 'malformed_tile'
  | 'malformed_proof'
  | 'proof_failed'
  | 'inconsistent'
  | 'malformed_policy'
  | 'malformed_request';

/**
 * The refusals of the C2SP format readers, with a closed union of codes.
 *
 * @example
 * ```ts
 * try {
 *   parseVkey('not a vkey');
 * } catch (e) {
 *   if (e instanceof TlogError) console.log(e.code); // 'malformed_vkey'
 * }
 * ```
 */
export class TlogError extends Error {
  readonly code: TlogErrorCode;
  constructor(code: TlogErrorCode, message: string) {
    super(message);
    this.name = 'TlogError';
    this.code = code;
  }
}

/**
 * Whether `e` is a TlogError.
 *
 * @example
 * ```ts
 * const ok = (() => { try { return parseCheckpoint(text); } catch (e) { if (isTlogError(e)) return null; throw e; } })();
 * ```
 */
export function isTlogError(e: unknown): e is TlogError {
  return e instanceof TlogError;
}
