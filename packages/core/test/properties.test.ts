// Invariants over arbitrary inputs: sign-then-verify, tamper-evidence, and total robustness.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { verifyBundle } from '../src/dispatch.js';
import { SvcError } from '../src/errors.js';
import { issueProof, issueTranscript, signTreeHead, issueConsistency } from '../src/issue/bundles.js';
import { buildRecord } from '../src/record/build.js';
import {
  proofInput,
  proofBundle,
  runBundle,
  exportArchive,
  transcriptBundle,
  consistencyBundleArb,
  sthBundle,
  provenanceRecord,
  mutated,
  leafPaths,
} from '../src/testing/arbitraries.js';
import { K, trusted, verdictOf } from './helpers.js';

/** A verdict, or the typed refusal: both mean "does not pass". Anything else is a bug. */
async function outcome(doc: unknown): Promise<{ ok: boolean; refused?: string }> {
  try {
    const r = await verifyBundle(doc, trusted);
    return { ok: r.verdict.overallOk };
  } catch (e) {
    if (e instanceof SvcError) return { ok: false, refused: e.code };
    throw e;
  }
}

describe('property: every valid bundle of every kind verifies and is recognised', () => {
  for (const [name, arb] of [
    ['transcript', transcriptBundle()],
    ['signed tree head', sthBundle()],
    ['consistency bundle', consistencyBundleArb()],
    ['run evidence pack', runBundle()],
    ['export archive', exportArchive()],
    ['AI Provenance Record', provenanceRecord()],
  ] as const) {
    it(name, async () => {
      await fc.assert(
        fc.asyncProperty(arb, async (b) => {
          const r = await verifyBundle(b, trusted);
          expect(r.verdict.overallOk).toBe(true);
          expect(r.signerRecognized).toBe(true);
        }),
        { numRuns: 15 },
      );
    });
  }
});

describe('property: sign then verify', () => {
  it('holds for arbitrary answers, prompts, excerpts and framing flags', async () => {
    await fc.assert(
      fc.asyncProperty(proofInput(), async (input) => {
        const b = issueProof(input, { receipt: K.answer });
        const r = await verifyBundle(b, trusted);
        expect(r.verdict.overallOk).toBe(true);
        expect(r.signerRecognized).toBe(true);
        const v = verdictOf(r, 'proof');
        if (input.prompt !== undefined) {
          const flags = input.framing;
          const any = !!flags && (flags.persona || flags.voice || flags.attachment || flags.history_turns);
          expect(v.receipt.questionBinding).toBe(any ? 'current-message' : 'entire-input');
        } else expect(v.receipt.questionBinding).toBeUndefined();
        if (input.excerpt) expect(v.excerpt).toEqual({ present: true, ok: true });
        // Its record re-verifies unchanged.
        const rec = await verifyBundle(buildRecord(b, { ...trusted, generated: 1 }), trusted);
        expect('record' in rec && rec.record.summaryOk).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});

describe('property: tamper evidence', () => {
  for (const [name, arb, runs] of [
    ['proof bundle', proofBundle(), 120],
    ['run evidence pack', runBundle(), 60],
    ['export archive', exportArchive(), 60],
    ['transcript', transcriptBundle(), 40],
    ['signed tree head', sthBundle(), 40],
    ['consistency bundle', consistencyBundleArb(), 40],
  ] as const) {
    it(`changing any signed byte or field, or swapping two fields, fails a ${name}`, async () => {
      await fc.assert(
        fc.asyncProperty(mutated(arb), async ({ bundle, description }) => {
          const o = await outcome(bundle);
          expect(o.ok, description).toBe(false);
        }),
        { numRuns: runs },
      );
    });
  }
});

const junk = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'kind', 'receipt', 'sig', 'turns', 'signed', 'toString'), tie('value'), {
      maxKeys: 4,
    }),
    fc.array(tie('value'), { maxLength: 3 }),
  ),
})).value;

function deep(n: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

describe('property: arbitrary input never crashes or hangs', () => {
  it('arbitrary JSON values give a verdict or the typed error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), junk), async (doc) => {
        await outcome(doc);
      }),
      { numRuns: 500 },
    );
  });

  it('arbitrary text gives a verdict or the typed error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), async (text) => {
        await outcome(text);
      }),
      { numRuns: 300 },
    );
  });

  const h = signTreeHead({ log: 'l', tree_size: 1, root_hash: '00'.repeat(32), timestamp: 1 }, K.sth);
  const valid = [
    issueProof(
      {
        answer: 'a',
        model: 'm',
        ts: 1,
        prompt: 'q',
        framing: { persona: 1, voice: 0, attachment: 0, history_turns: 0 },
        excerpt: { start: 0, end: 1 },
      },
      { receipt: K.answer, bridge: { primary: K.bridgePrimary, cosign: K.bridgeCosign }, random: K.random },
    ),
    issueTranscript([issueProof({ answer: 'b', model: 'm', ts: 1 }, { receipt: K.answer })]),
    h,
    issueConsistency(h, h, []),
  ];

  it('mutated documents of every kind (wrong types, truncation, junk, __proto__, deep nesting)', async () => {
    const docs = fc.oneof(
      fc.constantFrom(...valid),
      runBundle(),
      exportArchive(),
      proofBundle().map((b) => buildRecord(b, { ...trusted, generated: 1 }) as any),
    );
    await fc.assert(
      fc.asyncProperty(docs, fc.nat(), junk, fc.integer({ min: 0, max: 3 }), async (doc, pick, replacement, mode) => {
        const copy = JSON.parse(JSON.stringify(doc));
        const paths = leafPaths(copy).filter((p) => p.length > 0);
        const path = paths[pick % paths.length]!;
        let parent: any = copy;
        for (const p of path.slice(0, -1)) parent = parent[p];
        const last = path[path.length - 1]!;
        const value =
          mode === 0 ? replacement : mode === 1 ? deep(3000, replacement) : mode === 2 ? Array(5000).fill(replacement) : undefined;
        if (value === undefined) delete parent[last];
        else Object.defineProperty(parent, last, { value, enumerable: true, configurable: true, writable: true });
        await outcome(copy);
        // Truncated text of the same document.
        const text = JSON.stringify(copy);
        await outcome(text.slice(0, pick % (text.length + 1)));
      }),
      { numRuns: 150 },
    );
  });

  it('hostile nesting and __proto__ members are plain data', async () => {
    expect((await outcome(JSON.parse('{"__proto__":{"kind":"svc-proof"},"answer":"x"}'))).refused).toBe('unknown_kind');
    const p = JSON.parse(JSON.stringify(valid[0]));
    p.receipt.extra = deep(5000, 1);
    expect((await outcome(p)).ok).toBe(false);
    expect((await outcome('['.repeat(100000) + ']'.repeat(100000))).refused).toBeDefined();
  });
});
