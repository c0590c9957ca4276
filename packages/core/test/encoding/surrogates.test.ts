// Answer and prompt text without an exact UTF-8 form (a lone surrogate) must never verify: TextEncoder
// would write U+FFFD in its place, so a different string would hash like the signed one.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { verifyBundle, SvcError } from '../../src/index.js';
import { isWellFormedText, textSha256Hex } from '../../src/primitives-entry.js';
import { issueProof } from '../../src/issue-entry.js';
import { buildRecord } from '../../src/record-entry.js';
import { K, clone, trusted } from '../helpers.js';

const signed = issueProof({ answer: 'Total: 100 \uFFFD', prompt: 'Sum \uFFFD?', model: 'm', ts: 1_700_000_000 }, { receipt: K.answer });

describe('lone surrogates in answer and prompt', () => {
  it('the signed bundle verifies, and the same bundle with U+FFFD replaced by a lone surrogate does not', async () => {
    expect((await verifyBundle(signed, trusted)).verdict.overallOk).toBe(true);
    for (const lone of ['\uD800', '\uDC00', '\uDBFF']) {
      const a = { ...clone(signed), answer: signed.answer.replace('\uFFFD', lone) };
      const r = await verifyBundle(a, trusted);
      expect(r.verdict.overallOk).toBe(false);
      expect((r.verdict as { receipt: { answerHashOk: boolean } }).receipt.answerHashOk).toBe(false);
      const p = { ...clone(signed), prompt: (signed.prompt as string).replace('\uFFFD', lone) };
      const rp = await verifyBundle(p, trusted);
      expect(rp.verdict.overallOk).toBe(false);
    }
  });

  it('a record never attests a question whose text has a lone surrogate', () => {
    const p = { ...clone(signed), prompt: (signed.prompt as string).replace('\uFFFD', '\uD800') };
    const rec = buildRecord(p, { ...trusted, generated: 1_800_000_000 }) as unknown as { verification: { question?: { ok?: boolean } } };
    expect(JSON.stringify(rec)).not.toContain('"promptOk":true');
  });

  it('issuing refuses such text with a typed error', () => {
    expect(() => issueProof({ answer: 'a\uD800', model: 'm', ts: 1 }, { receipt: K.answer })).toThrow(SvcError);
    expect(() => issueProof({ answer: 'a', prompt: '\uDFFF', model: 'm', ts: 1 }, { receipt: K.answer })).toThrow(SvcError);
  });

  it('property: text hashes exactly when it is well-formed, and the check agrees with a re-encoding test', () => {
    const units = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 12 }).map((a) => String.fromCharCode(...a));
    fc.assert(
      fc.property(units, (s) => {
        const roundTrips = new TextDecoder('utf-8', { ignoreBOM: true }).decode(new TextEncoder().encode(s)) === s;
        expect(isWellFormedText(s)).toBe(roundTrips);
        expect(textSha256Hex(s) !== null).toBe(roundTrips);
      }),
      { numRuns: 3000 },
    );
  });
});
