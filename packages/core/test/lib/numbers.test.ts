// I-JSON numbers: one reading per document (#30 row 11). A number literal that a double cannot hold
// exactly is read one way by JSON.parse and another by a parser with exact integers or decimals,
// while the signature covers the double's canonical form; it is refused with its JSON Pointer.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { exactNumber, ijsonViolation } from '../../src/lib/members.js';
import { parseDocument } from '../../src/dispatch.js';
import { canonicalize } from '../../src/primitives-entry.js';
import { SvcError } from '../../src/errors.js';

describe('numbers a double holds exactly', () => {
  it('the literals of the attack are refused; their exact doubles are not', () => {
    for (const lit of ['9007199254740993', '9007199254740992.9', '9.007199254740993e15', '1.0000000000000001', '1e400', '-1e400'])
      expect(exactNumber(lit), lit).toBe(false);
    for (const lit of [
      '9007199254740992',
      '9.007199254740992e15',
      '1',
      '1.0',
      '1.50',
      '0.1',
      '-0',
      '0',
      '1e2',
      '1E+2',
      '1e-7',
      '5e-324',
      '1.7976931348623157e308',
    ])
      expect(exactNumber(lit), lit).toBe(true);
  });

  it('property: every double, as JSON.stringify and as RFC 8785 write it, is exact; one ulp of text more is not', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        expect(exactNumber(JSON.stringify(d))).toBe(true);
        expect(exactNumber(canonicalize(d))).toBe(true);
        // A digit appended far past the shortest form names another value, which no double is.
        const s = String(Math.abs(d));
        if (!s.includes('e') && d !== 0 && Number.isFinite(d)) {
          const longer = `${s.includes('.') ? s : `${s}.`}00000000000000000000001`;
          expect(exactNumber(longer)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('parseDocument refuses the document with the pointer of the number; a member name or string holding digits is not a number', () => {
    try {
      parseDocument('{"kind":"svc-run","run":{"budget":{"maxSteps":9007199254740993}}}');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SvcError);
      expect((e as SvcError).code).toBe('invalid_json');
      expect((e as SvcError).message).toMatch(/number at \/run\/budget\/maxSteps is not exactly a double/);
    }
    expect(ijsonViolation('{"9007199254740993":"9007199254740993","a":[1,2.5,-3e2]}')).toBeNull();
    expect(ijsonViolation('[1,2,1.0000000000000001]')).toEqual({ kind: 'inexact_number', at: '/2' });
  });
});
