// NIST ACVP material for the two FIPS signature schemes, run through our defensive wrappers
// wherever the service's mode (pure, external interface, with context) applies.
import { describe, expect, it } from 'vitest';
import { slh_dsa_sha2_256f } from '@noble/post-quantum/slh-dsa.js';
import { verifyMlDsa87, verifySlhDsa } from '../../src/crypto/algorithms.js';
import { mldsa, slh } from '../vectors-fs.js';

const hex = (s: string) => {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
};
const truthy = (x: unknown) => x === true || x === 'True' || x === 'true';

describe('ACVP ML-DSA-87 sigVer', () => {
  const groups = mldsa.prompt.testGroups;
  const expected = new Map<string, boolean>();
  for (const g of mldsa.expectedResults.testGroups) for (const t of g.tests) expected.set(String(t.tcId), truthy(t.testPassed));

  it('pure external groups with context verify through the wrapper exactly as expected', () => {
    const pure = groups.filter((g) => g.parameterSet === 'ML-DSA-87' && g.signatureInterface === 'external' && g.preHash === 'pure');
    expect(pure.length).toBeGreaterThan(0);
    let n = 0;
    let passes = 0;
    for (const g of pure) {
      for (const t of g.tests) {
        const want = expected.get(String(t.tcId));
        expect(want, `tcId ${t.tcId}`).toBeTypeOf('boolean');
        const got = verifyMlDsa87(hex(t.pk), hex(t.message), hex(t.signature), hex(t.context ?? ''));
        expect(got, `tcId ${t.tcId}: ${mldsa.reasons[t.tcId]}`).toBe(want);
        n++;
        if (want) passes++;
      }
    }
    expect(n).toBeGreaterThanOrEqual(15);
    expect(passes).toBeGreaterThan(0);
    expect(passes).toBeLessThan(n);
  });

  it('documents why the preHash group does not apply (the service signs in pure mode only)', () => {
    const pre = groups.filter((g) => g.preHash === 'preHash');
    expect(pre.length).toBeGreaterThan(0);
    // A pre-hash signature must never verify as a pure one: modes are domain separated.
    for (const t of pre[0]!.tests.slice(0, 3))
      expect(verifyMlDsa87(hex(t.pk), hex(t.message), hex(t.signature), hex(t.context ?? ''))).toBe(false);
  });
});

describe('ACVP SLH-DSA-SHA2-256f', () => {
  const sets = (slh as any).sets as any[];

  it('sets A and B (internal interface) verify with the primitive as expected', () => {
    const cases: { pk: string; message: string; signature: string; want: boolean }[] = [];
    const a = sets[0];
    const expectA = new Map<string, boolean>();
    for (const g of a.expectedResults.testGroups) for (const t of g.tests) expectA.set(String(t.tcId), truthy(t.testPassed));
    for (const g of a.prompt.testGroups)
      if (g.parameterSet === 'SLH-DSA-SHA2-256f') for (const t of g.tests) cases.push({ ...t, want: expectA.get(String(t.tcId))! });
    for (const g of sets[1].internalProjection.testGroups)
      if (g.parameterSet === 'SLH-DSA-SHA2-256f') for (const t of g.tests) cases.push({ ...t, want: truthy(t.testPassed) });
    expect(cases.length).toBeGreaterThanOrEqual(10);
    for (const c of cases) expect(slh_dsa_sha2_256f.internal.verify(hex(c.signature), hex(c.message), hex(c.pk))).toBe(c.want);
    expect(cases.some((c) => c.want)).toBe(true);
    expect(cases.some((c) => !c.want)).toBe(true);
  });

  it('sets C and D (external, pure, with context) verify through the wrapper as expected', () => {
    const cases = [...sets[2].tests, ...sets[3].tests].filter((t: any) => t.preHash === 'pure' && t.signatureInterface === 'external');
    expect(cases.length).toBeGreaterThanOrEqual(4);
    for (const t of cases) {
      expect(verifySlhDsa(hex(t.pk), hex(t.message), hex(t.signature), hex(t.context ?? '')), `${t.tcId} ${t.derivation ?? ''}`).toBe(
        truthy(t.testPassed),
      );
    }
  });
});
