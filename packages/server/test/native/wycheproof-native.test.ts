// Run under Node 24 (tools/scripts/test-runtimes.mjs): Wycheproof's ML-DSA-87 verify cases
// (C2SP/wycheproof, test-vectors/external/wycheproof) on the server's node:crypto backend (OpenSSL),
// through the core's verifyMlDsa87 wrapper, with contexts: Wycheproof's verdict for every case.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromHex, syncVerifier, verifyMlDsa87 } from '@svc/core/primitives';
import { nodeCryptoBackend } from '../../src/crypto/node.js';

const file = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../../test-vectors/external/wycheproof/mldsa_87_verify_test.json'), 'utf8'),
) as {
  numberOfTests: number;
  testGroups: { publicKey: string; tests: { tcId: number; msg: string; sig: string; ctx?: string; result: string }[] }[];
};
const hex = (h: string) => fromHex(h) ?? new Uint8Array(0);

describe('Wycheproof ML-DSA-87 on node:crypto', () => {
  it('every case', () => {
    const native = nodeCryptoBackend();
    expect(native, 'node:crypto has ML-DSA-87 on Node 24').not.toBeNull();
    const compute = syncVerifier(native!);
    let n = 0;
    for (const g of file.testGroups)
      for (const t of g.tests) {
        expect(verifyMlDsa87(hex(g.publicKey), hex(t.msg), hex(t.sig), hex(t.ctx ?? ''), compute), `tcId ${t.tcId}`).toBe(
          t.result === 'valid',
        );
        n++;
      }
    expect(n).toBe(file.numberOfTests);
  });
});
