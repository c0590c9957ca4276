import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromBase64, fromBase64Url, fromHex, toBase64, toBase64Url, toHex, isHex, bytesEqual } from '../../src/encoding/bytes.js';
import { sha256Hex } from '../../src/encoding/hash.js';

describe('strict encodings', () => {
  it('hex is lowercase only and even length', () => {
    expect(fromHex('00ff')).toEqual(new Uint8Array([0, 255]));
    expect(fromHex('00FF')).toBeNull();
    expect(fromHex('0')).toBeNull();
    expect(fromHex('zz')).toBeNull();
    expect(fromHex(12)).toBeNull();
    expect(fromHex('00', 2)).toBeNull();
    expect(isHex('abcd', 2)).toBe(true);
  });

  it('base64 must be canonical and padded', () => {
    expect(fromBase64('AAE=')).toEqual(new Uint8Array([0, 1]));
    expect(fromBase64('AAE')).toBeNull();
    expect(fromBase64('AAF=')).toBeNull(); // non-zero trailing bits do not round-trip
    expect(fromBase64('A-E=')).toBeNull();
  });

  it('SHA-256 of known strings', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('property: hex and base64 round-trip any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        expect(bytesEqual(fromHex(toHex(b))!, b)).toBe(true);
        expect(bytesEqual(fromBase64(toBase64(b))!, b)).toBe(true);
      }),
    );
  });

  it('property: fromHex accepts exactly the even-length lowercase hex strings, and decodes them like a reference', () => {
    const ref = (x: string) => (/^(?:[0-9a-f]{2})*$/.test(x) ? Uint8Array.from(x.match(/../g) ?? [], (p) => parseInt(p, 16)) : null);
    const chars = fc.constantFrom(...'0123456789abcdefABCDEFxg \u0000\u00e9\u0101\uD800😀'.split(''), '😀');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(chars, { maxLength: 40 }).map((a) => a.join('')),
          fc.uint8Array({ maxLength: 64 }).map(toHex),
        ),
        (x) => {
          const got = fromHex(x);
          const want = ref(x);
          if (want === null) expect(got).toBeNull();
          else expect(got && bytesEqual(got, want)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
    // Long inputs past the reusable buffer decode the same.
    const big = toHex(Uint8Array.from({ length: 600_000 }, (_, i) => i & 255));
    expect(fromHex(big)!.length).toBe(600_000);
    expect(fromHex(`${big.slice(0, -1)}G`)).toBeNull();
  });
});

describe('fromBase64 is canonical (property)', () => {
  it('decodes exactly what toBase64 writes, and nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (b) => {
        expect(fromBase64(toBase64(b))).toEqual(b);
      }),
    );
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 16 }), (chars) => {
        const s = chars.join('');
        const d = fromBase64(s);
        if (d !== null) expect(toBase64(d)).toBe(s);
      }),
      { numRuns: 3000 },
    );
    // Padding bits set: the same bytes, spelled otherwise; refused.
    expect(fromBase64('AB==')).toBeNull();
    expect(fromBase64('AAB=')).toBeNull();
    expect(fromBase64('AA==')).toEqual(new Uint8Array([0]));
  });
});

describe('base64url (JOSE)', () => {
  it('property: bytes round-trip, and exactly the canonical unpadded spelling is read', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
        const s = toBase64Url(b);
        expect(s).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(fromBase64Url(s)).toEqual(b);
        expect(s).toBe(toBase64(b).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
      }),
      { numRuns: 500, seed: 3320 },
    );
  });
  it('refuses padding, the standard alphabet, stray characters, an impossible length and non-zero spare bits', () => {
    for (const bad of ['AA==', 'A+8', 'A/8', 'AB C', 'A', 'AB=', 'AR', 'AAB', '\u00e9AAA']) expect(fromBase64Url(bad), bad).toBeNull();
    expect(fromBase64Url('AA')).toEqual(new Uint8Array([0]));
    expect(fromBase64Url('AAE')).toEqual(new Uint8Array([0, 1]));
  });
});
