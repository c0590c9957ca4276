// CBOR for COSE (RFC 8949, through cborg): deterministic encoding (s.4.2.1: shortest forms, map
// keys in bytewise order), and a strict reading that accepts one spelling of each value. Before
// cborg builds anything, one pass over the tokens refuses what a hostile sender could use to cost
// memory or stack (declared lengths past the bytes, nesting deeper than COSE ever needs) or to
// hide meaning (indefinite lengths, non-shortest forms, floats, undefined, unknown tags, text
// that is not UTF-8).
import { decode, encode, rfc8949EncodeOptions, Tagged, Tokenizer, Type } from 'cborg';
import { fromUtf8, toHex } from '../encoding/bytes.js';

/**
 * Nesting COSE structures never exceed: a tag, an array, a map of maps and the arrays in them.
 *
 * @example
 * ```ts
 * cborDecode(new Uint8Array([0x81, 0x00])); // depth 1: read; past MAX_CBOR_DEPTH: CborError('too_deep')
 * ```
 */
export const MAX_CBOR_DEPTH = 8;

/**
 * Why CBOR was refused: one of a closed set.
 *
 * @example
 * ```ts
 * try { cborDecode(bytes); } catch (e) { if (e instanceof CborError) console.log(e.code); }
 * ```
 */
export type CborErrorCode = 'malformed' | 'too_deep' | 'not_deterministic' | 'unsupported';

/**
 * A refusal to read CBOR, with its code.
 *
 * @example
 * ```ts
 * throw new CborError('too_deep', 'nested deeper than 8');
 * ```
 */
export class CborError extends Error {
  constructor(
    readonly code: CborErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CborError';
  }
}

/**
 * A decoded CBOR value: maps keep their integer keys.
 *
 * @example
 * ```ts
 * const header = cborDecode(protectedBytes) as Map<CborValue, CborValue>;
 * ```
 */
export type CborValue = number | string | boolean | null | Uint8Array | CborValue[] | Map<CborValue, CborValue> | Tagged;

export { Tagged };

/**
 * Deterministic CBOR (RFC 8949 s.4.2.1), as COSE protected headers and Sig_structure need.
 *
 * @example
 * ```ts
 * cborEncode(new Map([[1, -50]])); // a1 01 38 31
 * ```
 */
export function cborEncode(value: unknown): Uint8Array {
  const out = encode(value, rfc8949EncodeOptions);
  // cborg hands back a Node Buffer where the runtime has one: callers get a plain Uint8Array on
  // every runtime (a Buffer's slice() shares its memory, where a Uint8Array's copies).
  return Object.getPrototypeOf(out) === Uint8Array.prototype ? out : new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

const TOKEN_OPTIONS = { strict: true, allowIndefinite: false, allowUndefined: false, allowBigInt: false, retainStringBytes: true };

/** An open container: items still expected, and for a map its keys' order so far. */
interface Frame {
  left: number;
  map: boolean;
  /** Items of this container read so far: in a map, an even count means a key comes next. */
  read: number;
  keyStart: number;
  lastKey: Uint8Array | null;
  /** Every key so far, as hex of its encoding, where the order is free. */
  seen: Set<string> | null;
}

/** Bytewise lexicographic order of two encodings (RFC 8949 s.4.2.1): negative, zero, positive. */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * The pass over the tokens: structure, depth, declared lengths, the types allowed, and map keys.
 * Keys are compared as their encoded bytes, so a key repeated is refused whatever its type (two
 * empty arrays as much as two equal integers). With `ordered`, a map has one spelling:
 * `{"b":0,"a":1}` is refused where `{"a":1,"b":0}` is read.
 */
function prescan(bytes: Uint8Array, tags: readonly number[], ordered: boolean): void {
  const t = new Tokenizer(bytes, TOKEN_OPTIONS);
  const open: Frame[] = [];
  let items = 0;
  do {
    if (t.done()) throw new CborError('malformed', 'the CBOR ends inside an item');
    const top = open[open.length - 1];
    if (top?.map && top.read % 2 === 0) top.keyStart = t.pos();
    const token = t.next();
    const left = bytes.length - t.pos();
    if (Type.equals(token.type, Type.float)) throw new CborError('unsupported', 'floating-point values are not used here');
    if (Type.equals(token.type, Type.undefined) || Type.equals(token.type, Type.break))
      throw new CborError('unsupported', `CBOR ${token.type.name} is not used here`);
    if (Type.equals(token.type, Type.string)) {
      try {
        fromUtf8(token.byteValue as Uint8Array);
      } catch {
        throw new CborError('malformed', 'a text string that is not UTF-8');
      }
    }
    // Every item takes at least one byte: a count past the bytes left is a lie, refused before
    // anything is allocated for it.
    if (Type.equals(token.type, Type.array) || Type.equals(token.type, Type.map)) {
      const map = Type.equals(token.type, Type.map);
      const n = (token.value as number) * (map ? 2 : 1);
      if (n > left) throw new CborError('malformed', `a ${token.type.name} of ${token.value} items in ${left} bytes`);
      if (open.length >= MAX_CBOR_DEPTH) throw new CborError('too_deep', `nested deeper than ${MAX_CBOR_DEPTH}`);
      if (n > 0) {
        open.push({ left: n, map, read: 0, keyStart: 0, lastKey: null, seen: map && !ordered ? new Set() : null });
        continue;
      }
    } else if (Type.equals(token.type, Type.tag)) {
      if (!tags.includes(token.value as number)) throw new CborError('unsupported', `CBOR tag ${token.value} is not used here`);
      if (open.length >= MAX_CBOR_DEPTH) throw new CborError('too_deep', `nested deeper than ${MAX_CBOR_DEPTH}`);
      open.push({ left: 1, map: false, read: 0, keyStart: 0, lastKey: null, seen: null });
      continue;
    }
    items++;
    // A complete item closes every container it was the last item of.
    for (;;) {
      const f = open[open.length - 1];
      if (!f) break;
      if (f.map && f.read % 2 === 0) {
        const key = bytes.subarray(f.keyStart, t.pos());
        if (f.seen) {
          const hex = toHex(key);
          if (f.seen.has(hex)) throw new CborError('malformed', 'a map key repeated');
          f.seen.add(hex);
        } else {
          const order = f.lastKey ? compareBytes(f.lastKey, key) : -1;
          if (order === 0) throw new CborError('malformed', 'a map key repeated');
          if (order > 0) throw new CborError('not_deterministic', 'map keys out of the deterministic order (RFC 8949 s.4.2.1)');
          f.lastKey = key;
        }
      }
      f.read++;
      if (--f.left > 0) break;
      open.pop();
    }
  } while (open.length > 0);
  if (!t.done()) throw new CborError('malformed', 'bytes after the CBOR item');
  if (items === 0) throw new CborError('malformed', 'no CBOR item');
}

/**
 * Options of cborDecode.
 *
 * @example
 * ```ts
 * cborDecode(bytes, [], { ordered: true }); // dCBOR / RFC 8949 s.4.2.1: map keys in bytewise order
 * ```
 */
export interface CborDecodeOptions {
  /**
   * Refuse map keys out of the bytewise order of their encodings (RFC 8949 s.4.2.1). Off by
   * default: COSE signs its protected header as the bytes sent (RFC 9052 never asks for the
   * order), and the IETF's own examples (RFC 9964, the SCITT vectors) write keys out of order.
   * Nothing an entry or a verdict rests on depends on a map's order (wire-format s.13).
   */
  ordered?: boolean;
}

/**
 * Read exactly one CBOR item strictly: shortest forms only, definite lengths, map keys unique by
 * their encoded bytes whatever their type (in bytewise order too with `ordered`), maps as `Map`
 * (COSE keys are integers), no floats or undefined, only the `tags` named (kept as `Tagged`).
 * Throws CborError.
 *
 * @example
 * ```ts
 * const sign1 = cborDecode(bytes, [18]); // a Tagged(18, [protected, unprotected, payload, signature])
 * ```
 */
export function cborDecode(bytes: Uint8Array, tags: readonly number[] = [], opts: CborDecodeOptions = {}): CborValue {
  if (!(bytes instanceof Uint8Array)) throw new CborError('malformed', 'CBOR is bytes');
  try {
    prescan(bytes, tags, opts.ordered === true);
  } catch (e) {
    if (e instanceof CborError) throw e;
    throw new CborError(
      /minimal|smallest/i.test(String(e)) ? 'not_deterministic' : 'malformed',
      e instanceof Error ? e.message : String(e),
    );
  }
  try {
    return decode(bytes, {
      ...TOKEN_OPTIONS,
      retainStringBytes: false,
      rejectDuplicateMapKeys: true,
      useMaps: true,
      tags: Tagged.preserve(...tags),
    }) as CborValue;
  } catch (e) {
    throw new CborError('malformed', e instanceof Error ? e.message : String(e));
  }
}
