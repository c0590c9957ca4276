// A bounded slice of the structure-aware fuzzer in every test run (the long campaign is
// `npm run fuzz`). What must hold for every input: a verdict or the typed refusal, never another
// throw; no call over a second; no change to signed content that still verifies.
import { describe, expect, it } from 'vitest';
import { fuzzCorpus, fuzzTlog, fuzzUnsigned, fuzzVerify, mutate, prng } from '../src/testing/arbitraries-entry.js';
import { envelopeChecker } from '../src/envelope/receipt.js';
import { fuzzLog } from '../src/testing/fuzz.js';
import { verifyBundle } from '../src/dispatch.js';
import { trusted } from './helpers.js';
import { logPolicy } from '../src/tlog/index.js';
import { asKind } from '../src/testing/kind.js';

// The browser run has no process object; the default applies there.
const INPUTS = Number((globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env.FUZZ_CORE_INPUTS ?? 400);

// The slow-call check judges the work a call does, not the wall time a loaded machine gives it:
// this process's CPU time (the fuzzer runs on one thread; a CI run once saw one call at 1,181 ms
// of wall time beside the rest of the suite).
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

describe('unsigned-parts fuzzer (bounded slice, #41)', () => {
  it('unsigned parts changed, own keys offered, kinds crossed: nothing reported as verified moves', async () => {
    const stats = await fuzzUnsigned({ seed: 20261127, inputs: 150, now: cpuMs });
    expect(stats.findings).toEqual([]);
    expect(stats.inputs).toBe(150);
    for (const f of ['unsigned', 'own-key', 'cross-kind'] as const) expect(stats.families[f]).toBeGreaterThan(10);
  }, 300_000);
});

describe('core fuzzer (bounded slice)', () => {
  it(`${INPUTS} mutated documents of every kind: no untyped throw, no slow call, no forgery`, async () => {
    const stats = await fuzzVerify({ seed: 20261122, inputs: INPUTS, now: cpuMs });
    expect(stats.findings).toEqual([]);
    expect(stats.inputs).toBe(INPUTS);
    // The slice exercises verdicts, passes and refusals alike, not only the JSON parser.
    expect(stats.verdicts).toBeGreaterThan(INPUTS / 2);
    expect(stats.passed).toBeGreaterThan(INPUTS / 10);
    expect(Object.keys(stats.refusals).length).toBeGreaterThanOrEqual(2);
  }, 300_000);

  it('the oracle can fail: every mutant it marks must-fail really is a change to signed content that fails', async () => {
    const corpus = fuzzCorpus(7);
    const r = prng(7);
    let marked = 0;
    for (let i = 0; i < 150; i++) {
      const { kind, doc } = corpus[i % corpus.length]!;
      const m = mutate(doc, r, kind);
      if (!m.mustFail) continue;
      marked++;
      const ok = await verifyBundle(m.input, { ...trusted, envelopes: envelopeChecker }).then(
        (v) => v.verdict.overallOk,
        () => false,
      );
      expect(ok, m.description).toBe(false);
    }
    expect(marked).toBeGreaterThan(30);
  });

  it('every corpus document verifies before it is mutated', async () => {
    for (const { kind, doc } of fuzzCorpus(3)) expect((await verifyBundle(doc, trusted)).verdict.overallOk, kind).toBe(true);
  });

  it('the logged document is recognised by the pinned log, its answer full of invisible characters, and a junk log line is never (#30)', async () => {
    const logged = fuzzCorpus(3).find((c) => c.kind === 'logged')!.doc as Record<string, string>;
    expect(logged.answer).toMatch(/\u202E.*\u2066.*\u200B/s);
    const policy = { logPolicy: logPolicy(fuzzLog().policy) };
    const res = asKind(await verifyBundle(logged, { ...trusted, ...policy }), 'proof');
    expect(res.verdict.overallOk).toBe(true);
    expect(res.verdict.log).toMatchObject({ ok: true, logRecognized: true });
    // The #30 forgery: the log line's signature bytes replaced by junk of the same length.
    const lines = logged.tlogProof!.split('\n');
    const at = lines.findIndex((l) => l.startsWith('\u2014 '));
    const [dash, name, sig] = lines[at]!.split(' ');
    const junk = btoa(
      String.fromCharCode(
        ...atob(sig!)
          .split('')
          .map((c, i) => (i > 4 ? c.charCodeAt(0) ^ 0x5a : c.charCodeAt(0))),
      ),
    );
    lines[at] = `${dash} ${name} ${junk}`;
    const forged = asKind(await verifyBundle({ ...logged, tlogProof: lines.join('\n') }, { ...trusted, ...policy }), 'proof');
    expect(forged.verdict.overallOk && forged.verdict.log?.logRecognized).toBe(false);
  });
});

describe('C2SP formats fuzzer (bounded slice)', () => {
  it('mutated checkpoints, tlog-proofs, tiles, vkeys, sign-subtree requests and add-entries bodies: only TlogError, no slow call, nothing changed accepted', async () => {
    const stats = await fuzzTlog({ seed: 20261123, inputs: INPUTS, now: cpuMs });
    expect(stats.findings).toEqual([]);
    expect(stats.inputs).toBe(INPUTS);
    // Mutations that leave the input meaning the same (a changed unknown line, padding) are accepted.
    expect(stats.accepted).toBeGreaterThan(0);
    expect(Object.keys(stats.refusals).length).toBeGreaterThanOrEqual(4);
  }, 300_000);
});
