import { leafHash, nodeHash, toHex } from '@svc/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nativeHasher } from '../dist/internal.js';

describe('the native Merkle hasher', () => {
  it('property: equals the core RFC 6962 leaf and node hashes on any input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), (a, b) => {
        expect(toHex(nativeHasher.leaf(a))).toBe(toHex(leafHash(a)));
        expect(toHex(nativeHasher.node(a, b))).toBe(toHex(nodeHash(a, b)));
      }),
      { numRuns: 300 },
    );
  });
});
