import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalize, CanonicalizationError, MAX_JSON_DEPTH } from '../../src/encoding/jcs.js';
import { es6numbers, jcsInputs, jcsOutputs } from '../vectors-fs.js';

const base = (p: string) => p.split('/').pop()!;

describe('RFC 8785 canonicalization', () => {
  const pairs = Object.entries(jcsInputs).map(([path, input]) => {
    const out = Object.entries(jcsOutputs).find(([p]) => base(p) === base(path));
    return { name: base(path), input, expected: out?.[1] };
  });

  it('has the upstream input/output pairs', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(6);
    for (const p of pairs) expect(p.expected, p.name).toBeTypeOf('string');
  });

  for (const name of ['arrays.json', 'french.json', 'structures.json', 'unicode.json', 'values.json', 'weird.json']) {
    it(`matches ${name} byte for byte`, () => {
      const p = pairs.find((x) => x.name === name)!;
      expect(p).toBeDefined();
      // Output files may end with a newline; the canonical form itself never does.
      expect(canonicalize(JSON.parse(p.input))).toBe(p.expected!.replace(/\n$/, ''));
    });
  }

  it('serialises every number of the ES6 test file exactly', () => {
    const lines = es6numbers.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThanOrEqual(1000);
    let checked = 0;
    for (const line of lines) {
      const [hex, want] = line.split(',');
      const bits = BigInt(`0x${hex!.padStart(16, '0')}`);
      const view = new DataView(new ArrayBuffer(8));
      view.setBigUint64(0, bits);
      const n = view.getFloat64(0);
      if (!Number.isFinite(n)) {
        expect(() => canonicalize(n)).toThrow(CanonicalizationError);
        continue;
      }
      expect(canonicalize(n), line).toBe(want);
      checked++;
    }
    expect(checked).toBeGreaterThan(990);
  });

  it('refuses what is not I-JSON', () => {
    expect(() => canonicalize(NaN)).toThrow(CanonicalizationError);
    expect(() => canonicalize({ a: undefined })).toThrow(CanonicalizationError);
    expect(() => canonicalize('\ud800')).toThrow(CanonicalizationError);
    expect(() => canonicalize({ '\udc00': 1 })).toThrow(CanonicalizationError);
    expect(() => canonicalize(new Uint8Array(2))).toThrow(CanonicalizationError);
    expect(() => canonicalize(1n)).toThrow(CanonicalizationError);
    // Each refusal carries a code from a closed union.
    const code = (v: unknown) => {
      try {
        canonicalize(v);
      } catch (e) {
        return (e as CanonicalizationError).code;
      }
      return null;
    };
    expect([code(NaN), code('\ud800'), code({ a: undefined }), code(1n), code(1)]).toEqual([
      'non_finite',
      'lone_surrogate',
      'not_json',
      'not_json',
      null,
    ]);
  });

  it('refuses hostile nesting instead of exhausting the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH + 5; i++) deep = [deep];
    expect(() => canonicalize(deep)).toThrow(CanonicalizationError);
    expect(() => canonicalize(deep)).toThrow(expect.objectContaining({ code: 'too_deep' }));
  });

  it('keeps __proto__ as an ordinary member', () => {
    const o = JSON.parse('{"b":1,"__proto__":{"x":1},"a":2}');
    expect(canonicalize(o)).toBe('{"__proto__":{"x":1},"a":2,"b":1}');
  });

  it('property: canonical text is a fixed point and independent of member order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const c = canonicalize(v);
        expect(canonicalize(JSON.parse(c))).toBe(c);
        const reordered = JSON.parse(
          JSON.stringify(v, (_k, x) =>
            x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).reverse()) : x,
          ),
        );
        expect(canonicalize(reordered)).toBe(c);
      }),
      { numRuns: 300 },
    );
  });
});
