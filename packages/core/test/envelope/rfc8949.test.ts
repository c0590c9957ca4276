// RFC 8949's own examples read by the strict decoder. Appendix A (cbor/test-vectors @ aba89b6):
// every item is a value or a typed CborError, never another throw; what is read is what the
// appendix says and re-encodes to the same bytes; what is refused is only what this decoder
// documents it refuses (floats, undefined and other simple values, tags not asked for, indefinite
// lengths, integers past 2^53). Appendix F.1: every item that is not well-formed is a CborError.
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../src/encoding/bytes.js';
import { CborError, cborDecode, cborEncode, type CborValue } from '../../src/envelope/cbor.js';
import { cborAppendixA, cborNotWellFormed } from '../vectors-fs.js';

type Entry = { hex: string; roundtrip: boolean; decoded?: unknown; diagnostic?: string };
const entries = cborAppendixA as Entry[];

function attempt(hex: string): { value: CborValue } | { error: CborError } {
  try {
    return { value: cborDecode(fromHex(hex)!) };
  } catch (e) {
    if (!(e instanceof CborError)) throw e;
    return { error: e };
  }
}

/** Maps as JSON objects, for comparing with the appendix's JSON form. */
function plain(v: CborValue): unknown {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), plain(x)]));
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Uint8Array) return toHex(v);
  return v;
}

/**
 * What the decoder documents it refuses, found by walking the item's heads (a reader of heads
 * only, written here apart from the decoder): a float or simple value other than false, true and
 * null (major 7), a tag (major 6; none is asked for here), an indefinite length (additional
 * information 31), an integer past 2^53.
 */
function refusedByDesign(hex: string): boolean {
  const b = fromHex(hex)!;
  let at = 0;
  let refused = false;
  const item = (): void => {
    const major = b[at]! >> 5;
    const info = b[at]! & 31;
    at++;
    let n = 0n;
    if (info < 24) n = BigInt(info);
    else if (info <= 27) {
      const len = 1 << (info - 24);
      for (let i = 0; i < len; i++) n = (n << 8n) | BigInt(b[at++]!);
    }
    if (major === 7) {
      if (!(info >= 20 && info <= 22)) refused = true;
      return;
    }
    if (info === 31) {
      refused = true;
      // Items up to the break: strings' chunks, or array items, or map pairs.
      while (b[at] !== 0xff) item();
      at++;
      return;
    }
    if ((major === 0 || major === 1) && n > BigInt(Number.MAX_SAFE_INTEGER)) refused = true;
    if (major === 2 || major === 3) at += Number(n);
    else if (major === 4) for (let i = 0n; i < n; i++) item();
    else if (major === 5) for (let i = 0n; i < 2n * n; i++) item();
    else if (major === 6) {
      refused = true;
      item();
    }
  };
  item();
  return refused;
}

describe('RFC 8949 Appendix A', () => {
  it(`all ${entries.length} items: a value equal to the appendix's, or a refusal this decoder documents`, () => {
    expect(entries.length).toBe(82);
    let read = 0;
    for (const e of entries) {
      const r = attempt(e.hex);
      if ('value' in r) {
        read++;
        expect(refusedByDesign(e.hex), `${e.hex} was read though the decoder documents refusing it`).toBe(false);
        if (e.decoded !== undefined) expect(plain(r.value), e.hex).toEqual(e.decoded);
        // What is read re-encodes to the very bytes (deterministic encoding, RFC 8949 s.4.2.1).
        if (e.roundtrip) expect(toHex(cborEncode(r.value)), e.hex).toBe(e.hex);
      } else
        expect(refusedByDesign(e.hex), `${e.hex} (${e.diagnostic ?? JSON.stringify(e.decoded)}) refused: ${r.error.message}`).toBe(true);
    }
    // Integers, text, bytes, arrays, maps, booleans and null: most of the appendix.
    expect(read).toBeGreaterThanOrEqual(35);
  });

  it('with ordered, the appendix maps are read: they are written in the deterministic order', () => {
    for (const e of entries.filter((x) => /^a|^b[0-7]/.test(x.hex)))
      expect(() => cborDecode(fromHex(e.hex)!, [], { ordered: true }), e.hex).not.toThrow();
  });
});

describe('RFC 8949 Appendix F.1: not well-formed', () => {
  const groups = (cborNotWellFormed as { groups: Record<string, string[]> }).groups;
  for (const [heading, items] of Object.entries(groups))
    it(`${heading}: every item refused with a CborError`, () => {
      expect(items.length).toBeGreaterThan(0);
      for (const hex of items) {
        const r = attempt(hex);
        expect('error' in r, `${hex} read as ${JSON.stringify('value' in r ? plain(r.value) : null)}`).toBe(true);
      }
    });
});
