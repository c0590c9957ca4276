import { toHex } from '@svc/core/primitives';
import { leafHash, nodeHash } from '@svc/core/merkle';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nativeHasher } from '../../src/internal.js';

describe('the native Merkle hasher', () => {
  it('property: equals the core RFC 6962 leaf and node hashes on any input', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 80 })),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (a, b) => {
          expect(toHex(nativeHasher.leaf(a))).toBe(toHex(leafHash(a)));
          expect(toHex(nativeHasher.node(a, b))).toBe(toHex(nodeHash(a, b)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reusing its scratch input never leaks one call into the next', () => {
    const a = new Uint8Array(32).fill(1);
    const b = new Uint8Array(32).fill(2);
    const first = toHex(nativeHasher.node(a, b));
    nativeHasher.node(b, a);
    nativeHasher.leaf(a);
    expect(toHex(nativeHasher.node(a, b))).toBe(first);
    expect(first).toBe(toHex(nodeHash(a, b)));
  });
});
