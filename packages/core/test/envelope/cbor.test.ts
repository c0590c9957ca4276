// Hostile CBOR: every trick a sender could use to cost memory or stack, or to give one value two
// spellings, is a typed CborError; a COSE verifier answers it with `malformed`, never a throw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromHex } from '@svc/core/primitives';
import { CborError, cborDecode, cborEncode, MAX_CBOR_DEPTH, verifyCose1 } from '@svc/core/envelope';

const bytes = (hex: string) => fromHex(hex.replaceAll(' ', ''))!;

describe('strict CBOR', () => {
  const cases: [string, Uint8Array, string[]][] = [
    ['an indefinite-length array', bytes('9f 01 ff'), ['malformed', 'unsupported']],
    ['an indefinite-length byte string', bytes('5f 41 00 ff'), ['malformed', 'unsupported']],
    ['1 written in two bytes', bytes('18 01'), ['not_deterministic', 'malformed']],
    ['a length written long', bytes('59 00 01 00'), ['not_deterministic', 'malformed']],
    ['a map with a repeated key', bytes('a2 01 01 01 02'), ['malformed']],
    ['a date tag', bytes('c1 00'), ['unsupported']],
    ['tag 18 where no tag is expected', bytes('d2 80'), ['unsupported']],
    [`nesting of ${MAX_CBOR_DEPTH + 1}`, bytes(`${'81'.repeat(MAX_CBOR_DEPTH + 1)}00`), ['too_deep']],
    ['an array claiming 2^32-1 items', bytes('9b 00 00 00 00 ff ff ff ff'), ['malformed']],
    ['a map claiming 2^31 entries', bytes('ba 80 00 00 00 01'), ['malformed']],
    ['a byte string longer than the bytes', bytes('5a 00 10 00 00 00'), ['malformed']],
    ['a half float', bytes('f9 3c 00'), ['unsupported']],
    ['a double', bytes('fb 3f f0 00 00 00 00 00 00'), ['unsupported']],
    ['undefined', bytes('f7'), ['unsupported', 'malformed']],
    ['text that is not UTF-8', bytes('62 ff fe'), ['malformed']],
    ['a second item after the first', bytes('01 01'), ['malformed']],
    ['nothing', bytes(''), ['malformed']],
    ['a stray break', bytes('ff'), ['unsupported', 'malformed']],
    ['a reserved additional information', bytes('1c'), ['malformed']],
    // Round five: keys compared as encoded bytes, whatever their type.
    ['a repeated empty-array key: {[]:0,[]:1}', bytes('a2 80 00 80 01'), ['malformed']],
    ['a repeated array key: {[0]:0,[0]:1}', bytes('a2 81 00 00 81 00 01'), ['malformed']],
    ['a repeated map key: {{}:0,{}:1}', bytes('a2 a0 00 a0 01'), ['malformed']],
    ['a repeated key inside a nested map', bytes('81 a2 01 00 01 01'), ['malformed']],
  ];
  for (const [name, input, codes] of cases)
    it(`${name}: refused (${codes.join(' or ')}), and as a COSE_Sign1: malformed`, () => {
      let err: unknown = null;
      try {
        cborDecode(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CborError);
      expect(codes).toContain((err as CborError).code);
      expect(verifyCose1(input, [])).toMatchObject({ ok: false, error: 'malformed' });
    });

  it('keys out of order: read by default (COSE signs the bytes sent), refused with ordered (RFC 8949 s.4.2.1)', () => {
    for (const hex of ['a2 61 62 00 61 61 01', 'a2 20 00 01 00', 'a1 01 a2 02 00 01 00']) {
      expect(cborDecode(bytes(hex))).toBeInstanceOf(Map);
      expect(() => cborDecode(bytes(hex), [], { ordered: true })).toThrow(expect.objectContaining({ code: 'not_deterministic' }));
    }
  });

  it('property: with ordered, a map reads only with its keys in bytewise order of their encodings, each once; without, each once in any order', () => {
    const key = fc.oneof(fc.integer({ min: -300, max: 300 }), fc.string({ maxLength: 3 }), fc.uint8Array({ maxLength: 2 }));
    fc.assert(
      fc.property(fc.array(key, { minLength: 2, maxLength: 6 }), (keys) => {
        // Written in the order given, one pair at a time: the encoder is not asked to sort.
        const enc = keys.map((k) => cborEncode(k));
        const pairs = enc.map((e) => [...e, 0x00]);
        const body = new Uint8Array([0xa0 + keys.length, ...pairs.flat()]);
        const hex = enc.map((e) => Array.from(e, (b) => b.toString(16).padStart(2, '0')).join(''));
        const sortedUnique = hex.every((h, i) => i === 0 || hex[i - 1]! < h);
        if (sortedUnique) expect(cborDecode(body, [], { ordered: true })).toBeInstanceOf(Map);
        else expect(() => cborDecode(body, [], { ordered: true })).toThrow(CborError);
        if (new Set(hex).size === hex.length) expect(cborDecode(body)).toBeInstanceOf(Map);
        else expect(() => cborDecode(body)).toThrow(expect.objectContaining({ code: 'malformed' }));
      }),
      { numRuns: 400, seed: 41 },
    );
  });

  it(`nesting of exactly ${MAX_CBOR_DEPTH} is read`, () => {
    expect(cborDecode(bytes(`${'81'.repeat(MAX_CBOR_DEPTH)}00`))).toBeDefined();
  });

  it('encoding gives a plain Uint8Array on every runtime: a copy made with slice() never writes through', () => {
    const out = cborEncode(new Map<number, unknown>([[1, new Uint8Array(40).fill(7)]]));
    expect(Object.getPrototypeOf(out)).toBe(Uint8Array.prototype);
    const copy = out.slice();
    copy[copy.length - 1] = 0;
    expect(out[out.length - 1]).toBe(7);
  });

  it('deterministic encoding round-trips with integer keys in bytewise order', () => {
    const m = new Map<number, unknown>([
      [16, 't'],
      [-1, new Uint8Array([1])],
      [1, -50],
      [4, new Uint8Array(2)],
    ]);
    const enc = cborEncode(m);
    // 01 04 10 20: keys sorted by their encoded bytes (RFC 8949 s.4.2.1).
    expect([...enc.slice(0, 2)]).toEqual([0xa4, 0x01]);
    expect(cborDecode(enc)).toEqual(new Map([...m].sort((a, b) => (a[0] === -1 ? 1 : b[0] === -1 ? -1 : a[0] - b[0]))));
  });

  it('property: any bytes are either a value or a CborError, and a COSE verifier never throws on them', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (b) => {
        try {
          cborDecode(b, [18]);
        } catch (e) {
          expect(e).toBeInstanceOf(CborError);
        }
        expect(verifyCose1(b, []).ok).toBe(false);
      }),
      { numRuns: 3000, seed: 3302 },
    );
  });

  it('2 MiB of nested one-entry maps is refused at the depth bound, not walked', () => {
    const big = new Uint8Array(2 * 1024 * 1024).fill(0xa1);
    expect(() => cborDecode(big)).toThrow(expect.objectContaining({ code: 'too_deep' }));
  });
});
