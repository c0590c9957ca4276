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

describe('resource schemas', () => {
  /** The schema with no member beyond those it names, at every depth: a member the issuer writes and the schema lacks fails. */
  const strict = (s: unknown): unknown =>
    JSON.parse(JSON.stringify(s), (_k, v) =>
      v &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      v.type === 'object' &&
      v.properties &&
      Object.keys(v.properties).length > 0 &&
      v.additionalProperties === undefined
        ? { ...v, additionalProperties: false }
        : v,
    );

  it('every member an issuer writes is in the schema of what it issues (the wire types derive from these)', async () => {
    const { issueProof, issueRun, issueExport, issueTranscript, signTreeHead, issueConsistency } = await import(
      '../../src/issue/bundles.js'
    );
    const { envelopeMaker } = await import('../../src/envelope/index.js');
    const { K } = await import('../helpers.js');
    const { canonicalize } = await import('../../src/encoding/jcs.js');
    const message = canonicalize({ tool_calls: [{ id: 't1', name: 'f', arguments: '{}' }], finish_reason: 'tool_calls' });
    const proofs = [
      issueProof({ answer: 'Paris.', model: 'm', ts: 1_767_225_600 }, { receipt: K.answer }),
      issueProof(
        {
          answer: 'Paris.',
          model: 'm',
          ts: 1_767_225_600,
          created: 1_767_225_601,
          prompt: 'Capital?',
          request: { temperature: 0 },
          excerpt: { start: 0, end: 5 },
          governance_flag: 'ok',
          council_grounded: true,
        },
        { receipt: K.answer, slh: K.slh, envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: new Uint8Array(32).fill(7) }) },
      ),
      issueProof({ answer: message, answerForm: 'message', model: 'm', ts: 1_767_225_600 }, { receipt: K.answer }),
    ];
    const strictProof = strict(S.ProofBundle) as never;
    for (const p of proofs) expect(Value.Errors(strictProof, p).map((e: any) => e.instancePath ?? e.path)).toEqual([]);
    const run = issueRun(
      { id: 'r', goal: 'g', steps: [{ i: 0, action: 'a', output_sha256: '00'.repeat(32), verify: 'none', credits: 1 }] },
      { model: 'm', ts: 1 },
      { receipt: K.autopilot },
    );
    expect(Value.Check(strict(S.RunProofBundle) as never, run)).toBe(true);
    const archive = issueExport(
      [{ id: 'c', messages: [{ role: 'user', content: 'hi' }] }],
      { model: 'm', ts: 1, exported: 'x' },
      { receipt: K.export },
    );
    expect(Value.Check(strict(S.ExportArchive) as never, archive)).toBe(true);
    expect(Value.Check(strict(S.TranscriptBundle) as never, issueTranscript(proofs.slice(0, 1), { title: 't' }))).toBe(true);
    const h = signTreeHead(
      { log: 'svc-ledger', tree_size: 0, root_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', timestamp: 1 },
      K.sth,
    );
    expect(Value.Check(strict(S.ConsistencyBundle) as never, issueConsistency(h, h, []))).toBe(true);
    // It can fail: a member the schema does not name.
    expect(Value.Check(strictProof, { ...proofs[0]!, extra: 1 })).toBe(false);
  });
});
