// The specification's limits, in one leaf module that imports nothing: schemas, parsers, verifiers
// and the server's OpenAPI text all read them from here, so a limit is written once.

/**
 * Request bodies above this many bytes are refused (interface.md Limits: 2 MB).
 *
 * @example
 * ```ts
 * if (body.byteLength > MAX_BODY_BYTES) return new Response(null, { status: 413 });
 * ```
 */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/**
 * Deeper documents are refused so that hostile nesting cannot exhaust the stack.
 *
 * @example
 * ```ts
 * if (depth > MAX_JSON_DEPTH) throw new Error('too deep to canonicalise');
 * ```
 */
export const MAX_JSON_DEPTH = 500;

/**
 * The most turns a transcript may hold (more is too_many_turns, 422).
 *
 * @example
 * ```ts
 * if (turns.length > MAX_TURNS) throw new Error('split the transcript');
 * ```
 */
export const MAX_TURNS = 200;

/**
 * The longest subject organisation a record accepts, in code points (E6).
 *
 * @example
 * ```ts
 * if ([...org].length > MAX_ORG_LENGTH) throw new Error('organisation name too long');
 * ```
 */
export const MAX_ORG_LENGTH = 200;
