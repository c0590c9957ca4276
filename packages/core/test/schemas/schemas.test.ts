// The verdict types are derived from the TypeBox schemas (one direction only); here every verdict
// the test vectors record, and every verdict a fresh verification gives, is checked against its
// kind's exact schema, so a schema that no longer describes what the verifier answers fails.
import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import * as S from '../../src/schemas/index.js';
import { verifyBundle } from '../../src/dispatch.js';
import { ourVectors } from '../vectors-fs.js';

const SCHEMA_OF = (kind: string) => {
  const k = kind.replace(/^[a-z0-9-]*?-(?=proof$|transcript$|autopilot-run$|export$|sth$|consistency$|ai-provenance-record$)/, '');
  switch (k) {
    case 'proof':
      return S.ProofVerdict;
    case 'transcript':
      return S.TranscriptVerdict;
    case 'autopilot-run':
      return S.RunVerdict;
    case 'export':
      return S.ExportVerdict;
    case 'sth':
      return S.SthVerdict;
    case 'consistency':
      return S.ConsistencyVerdict;
    default:
      return null;
  }
};

describe('verdict schemas', () => {
  it("every recorded and every fresh verdict matches its kind's exact schema, the documented any-kind one and the response", async () => {
    let checked = 0;
    for (const data of Object.values(ourVectors) as {
      cases: {
        expected: { status: number; response?: { kind: string; verdict: unknown } };
        input?: unknown;
        inputText?: string;
        trustedKeys?: unknown[];
        service?: string;
      }[];
    }[]) {
      for (const c of data.cases) {
        if (c.expected.status !== 200 || !c.expected.response) continue;
        const fresh = await verifyBundle(c.inputText ?? c.input, { trustedKeys: c.trustedKeys as never, service: c.service });
        for (const res of [c.expected.response, fresh]) {
          const exact = SCHEMA_OF(res.kind);
          // A record's verdict is its proof's or its run's.
          const schemas = exact ? [exact] : [S.ProofVerdict, S.RunVerdict];
          expect(
            schemas.some((s) => Value.Check(s, res.verdict)),
            `${res.kind}: ${JSON.stringify([...Value.Errors(schemas[0]!, res.verdict)].slice(0, 2))}`,
          ).toBe(true);
          expect(Value.Check(S.Verdict, res.verdict)).toBe(true);
          expect(Value.Check(S.VerifyResponse, res)).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('the exact schemas can fail: a proof verdict is not a transcript verdict, and a missing member is caught', () => {
    const proof = { overallOk: true, checks: 1, signerRecognized: true, receipt: { present: true } };
    expect(Value.Check(S.TranscriptVerdict, proof)).toBe(false);
    expect(Value.Check(S.ProofVerdict, proof)).toBe(false); // receipt lacks its members
  });
});
