// Rate limits with an injected clock: sliding windows, never calendar minutes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RateLimiter } from '../../src/internal.js';

function limiterAt() {
  let t = 0;
  const rl = new RateLimiter(() => t);
  return { rl, set: (ms: number) => (t = ms) };
}

describe('sliding-window rate limits', () => {
  it('80 requests in 3 s across a minute boundary: at most the limit (40) pass', () => {
    const { rl, set } = limiterAt();
    let passed = 0;
    for (let i = 0; i < 80; i++) {
      set(58_500 + Math.floor((i * 3000) / 80)); // 58.5 s .. 61.5 s
      if (rl.take('1.2.3.4', 'verify', 40) === 0) passed++;
    }
    expect(passed).toBe(40);
  });

  it('a refused client is told when a request will pass, and it does then', () => {
    const { rl, set } = limiterAt();
    set(10_000);
    for (let i = 0; i < 5; i++) expect(rl.take('a', 'g', 5)).toBe(0);
    set(25_000);
    const wait = rl.take('a', 'g', 5);
    expect(wait).toBe(45);
    set(25_000 + wait * 1000 - 1);
    expect(rl.take('a', 'g', 5)).toBeGreaterThan(0);
    set(25_000 + wait * 1000);
    expect(rl.take('a', 'g', 5)).toBe(0);
  });

  it('property: with counts (a batch spends one per answer) no window holds more units than the limit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 1, max: 12 })), { minLength: 1, maxLength: 80 }),
        (steps) => {
          const { rl, set } = limiterAt();
          let t = 0;
          const allowed: [number, number][] = [];
          for (const [dt, count] of steps) {
            t += dt;
            set(t);
            const inWindow = allowed.filter(([at]) => at > t - 60_000).reduce((a, [, c]) => a + c, 0);
            const wait = rl.take('k', 'issue', 10, count);
            // Allowed exactly when it fits; a count above the limit never does.
            expect(wait === 0).toBe(count <= 10 && inWindow + count <= 10);
            if (wait === 0) allowed.push([t, count]);
          }
        },
      ),
    );
  });

  it('keys and groups are counted apart; 0 disables', () => {
    const { rl } = limiterAt();
    expect(rl.take('a', 'g', 1)).toBe(0);
    expect(rl.take('a', 'g', 1)).toBeGreaterThan(0);
    expect(rl.take('b', 'g', 1)).toBe(0);
    expect(rl.take('a', 'h', 1)).toBe(0);
    for (let i = 0; i < 100; i++) expect(rl.take('a', 'z', 0)).toBe(0);
  });

  it('property: no 60-second span ever holds more allowed requests than the limit, and a request is refused only when it would', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 200 }),
        (limit, gaps) => {
          const { rl, set } = limiterAt();
          let t = 0;
          const allowed: number[] = [];
          for (const g of gaps) {
            t += g;
            set(t);
            const inWindow = allowed.filter((a) => a > t - 60_000).length;
            const wait = rl.take('ip', 'g', limit);
            if (wait === 0) allowed.push(t);
            // Refused exactly when the limit is already reached within the last 60 s.
            expect(wait === 0).toBe(inWindow < limit);
          }
          for (let i = 0; i < allowed.length; i++) {
            const span = allowed.filter((a) => a >= allowed[i]! && a < allowed[i]! + 60_000).length;
            expect(span).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the table of clients is capped, so spoofed-address floods cannot grow it without bound', () => {
    let t = 0;
    const rl = new RateLimiter(() => t, 1000);
    for (let i = 0; i < 5000; i++) rl.take(`10.0.${i >> 8}.${i & 255}`, 'g', 10);
    expect((rl as unknown as { hits: Map<string, unknown> }).hits.size).toBeLessThanOrEqual(1000);
    t = 120_000;
    rl.take('x', 'g', 10);
    expect((rl as unknown as { hits: Map<string, unknown> }).hits.size).toBe(1);
  });
});
