// RFC 8785 JSON Canonicalization Scheme. ECMAScript's own number and string serialisation is what
// RFC 8785 adopts, so JSON.stringify on primitives is exact; only member ordering, I-JSON checks
// and the refusal of non-JSON values are done here.
import { MAX_JSON_DEPTH } from '../limits.js';
export { MAX_JSON_DEPTH };

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Why a value has no RFC 8785 form, as a closed union a caller can switch on.
 *
 * @example
 * ```ts
 * try { canonicalize({ x: 1n }); } catch (e) { if (e instanceof CanonicalizationError) console.log(e.code satisfies CanonicalizationErrorCode); }
 * ```
 */
export type CanonicalizationErrorCode = 'too_deep' | 'not_json' | 'lone_surrogate' | 'non_finite';

/**
 * Thrown by canonicalize for a value RFC 8785 cannot write (non-finite number, lone surrogate, too deep, not JSON).
 *
 * @example
 * ```ts
 * try {
 *   canonicalize({ n: Number.NaN });
 * } catch (e) {
 *   if (e instanceof CanonicalizationError) console.log(e.code);
 * }
 * ```
 */
export class CanonicalizationError extends Error {
  readonly code: CanonicalizationErrorCode;

  constructor(message: string, code: CanonicalizationErrorCode = 'not_json') {
    super(message);
    this.name = 'CanonicalizationError';
    this.code = code;
  }
}

function str(s: string): string {
  if (LONE_SURROGATE.test(s)) throw new CanonicalizationError('string holds a lone surrogate (not I-JSON)', 'lone_surrogate');
  return JSON.stringify(s);
}

function write(value: unknown, depth: number, out: string[]): void {
  if (depth > MAX_JSON_DEPTH) throw new CanonicalizationError('document nested too deeply', 'too_deep');
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalizationError('non-finite number', 'non_finite');
      out.push(JSON.stringify(value));
      return;
    case 'string':
      out.push(str(value));
      return;
    case 'object':
      break;
    default:
      throw new CanonicalizationError(`${typeof value} is not a JSON value`);
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      write(value[i], depth + 1, out);
    }
    out.push(']');
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw new CanonicalizationError('only plain objects are JSON objects');
  // Default sort compares UTF-16 code units, which is the order RFC 8785 section 3.2.3 prescribes.
  const keys = Object.keys(value).sort();
  out.push('{');
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = (value as Record<string, unknown>)[k];
    if (i > 0) out.push(',');
    out.push(str(k), ':');
    write(v, depth + 1, out);
  }
  out.push('}');
}

/**
 * Canonical JSON text of a JSON value; throws CanonicalizationError on anything that is not I-JSON.
 *
 * @example
 * ```ts
 * canonicalize({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 * ```
 */
export function canonicalize(value: unknown): string {
  const out: string[] = [];
  write(value, 0, out);
  return out.join('');
}

/**
 * Canonical text, or null when the value cannot be canonicalised (verification then fails).
 *
 * @example
 * ```ts
 * tryCanonicalize({ a: 1 }); // '{"a":1}'
 * tryCanonicalize({ a: Number.POSITIVE_INFINITY }); // null
 * ```
 */
export function tryCanonicalize(value: unknown): string | null {
  try {
    return canonicalize(value);
  } catch {
    return null;
  }
}
