// Client addresses have one spelling, and IPv6 clients are limited per prefix (#29 row 7): a client
// must not get a second window by writing its address another way or by moving within its /64.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalAddress, clientIp, limitKey, RateLimiter } from '../../src/internal.js';

const v6 = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 });
/** Every way to write eight groups: case, leading zeros, and any run of zero groups as `::`. */
function spellings(g: number[]): fc.Arbitrary<string> {
  return fc.record({ upper: fc.boolean(), pad: fc.boolean(), cut: fc.nat({ max: 8 }) }).map(({ upper, pad, cut }) => {
    const parts = g.map((x) => {
      const h = x.toString(16);
      const p = pad ? h.padStart(4, '0') : h;
      return upper ? p.toUpperCase() : p;
    });
    // Compress the first run of zero groups starting at or after `cut`, if there is one.
    const i = parts.findIndex((_, k) => k >= cut && g[k] === 0);
    if (i < 0) return parts.join(':');
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    return `${parts.slice(0, i).join(':')}::${parts.slice(j).join(':')}`;
  });
}

describe('client addresses', () => {
  it('the spellings the attack used are one client each', () => {
    expect(canonicalAddress('2001:DB8::7')).toBe('2001:db8::7');
    expect(canonicalAddress('2001:db8:0:0::7')).toBe('2001:db8::7');
    expect(canonicalAddress('::FFFF:192.0.2.7')).toBe('192.0.2.7');
    expect(canonicalAddress('::ffff:c000:207')).toBe('192.0.2.7');
    expect(canonicalAddress('fe80::1%eth0')).toBe('fe80::1');
    expect(canonicalAddress('[2001:db8::7]')).toBe('2001:db8::7');
    expect(canonicalAddress('192.0.2.7')).toBe('192.0.2.7');
    expect(canonicalAddress('not an address')).toBe('not an address');
    expect(clientIp('::ffff:127.0.0.1', undefined, [])).toBe('127.0.0.1');
  });

  it('property: every spelling of an IPv6 address has one canonical form, which is a fixed point', () => {
    fc.assert(
      fc.property(
        v6.chain((g) => fc.tuple(fc.constant(g), spellings(g), spellings(g))),
        ([, a, b]) => {
          const ca = canonicalAddress(a);
          expect(canonicalAddress(b)).toBe(ca);
          expect(canonicalAddress(ca)).toBe(ca);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: two addresses share a limit key exactly when their first 64 bits agree', () => {
    fc.assert(
      fc.property(v6, v6, fc.boolean(), (a, b, same) => {
        const bb = same ? [...a.slice(0, 4), ...b.slice(4)] : b;
        // Leave IPv4-mapped space aside: those are IPv4 clients, limited per address.
        fc.pre(!(a.slice(0, 5).every((x) => x === 0) && a[5] === 0xffff));
        fc.pre(!(bb.slice(0, 5).every((x) => x === 0) && bb[5] === 0xffff));
        const ka = limitKey(canonicalAddress(a.map((x) => x.toString(16)).join(':')), 64);
        const kb = limitKey(canonicalAddress(bb.map((x) => x.toString(16)).join(':')), 64);
        expect(ka === kb).toBe(a.slice(0, 4).every((x, i) => x === bb[i]));
      }),
      { numRuns: 500 },
    );
  });

  it('the prefix is configurable; IPv4 keys are the address itself', () => {
    expect(limitKey('2001:db8:1:2:aaaa::1', 64)).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:db8:1:2:aaaa::1', 48)).toBe('2001:db8:1::/48');
    expect(limitKey('2001:db8:1:2:aaaa::1', 56)).toBe('2001:db8:1::/56');
    expect(limitKey('2001:db8:1:2ff:aaaa::1', 56)).toBe('2001:db8:1:200::/56');
    expect(limitKey('2001:db8::1', 128)).toBe('2001:db8::1');
    expect(limitKey('192.0.2.7', 64)).toBe('192.0.2.7');
  });

  it('a trusted proxy is recognised however either side spells it, and its hops are canonical', () => {
    expect(clientIp('::ffff:10.0.0.1', '2001:DB8::7', ['10.0.0.1'])).toBe('2001:db8::7');
    expect(clientIp('10.0.0.1', '::ffff:c000:207, 10.0.0.1', ['::ffff:10.0.0.1'])).toBe('192.0.2.7');
  });

  it('100 requests from one /64, each from another address, share one window of the limit', () => {
    let t = 0;
    const rl = new RateLimiter(() => t);
    let allowed = 0;
    for (let i = 0; i < 100; i++) {
      t += 10;
      const ip = clientIp('10.0.0.1', `2001:db8:0:7:${i.toString(16)}::1`, ['10.0.0.1']);
      if (rl.take(limitKey(ip, 64), 'verify', 40) === 0) allowed++;
    }
    expect(allowed).toBe(40);
  });
});
