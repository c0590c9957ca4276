// Wycheproof (C2SP/wycheproof, test-vectors/external/wycheproof) on the server's own backends:
// OpenSSL through node:crypto for Ed25519 and ECDSA P-256 (the classical verifier SCITT
// registration injects, opensslClassical, behind the core's scittVerify). ML-DSA-87 on node:crypto
// is test/native/wycheproof-native.test.ts, run under Node 24. The same verdict as Wycheproof's
// for every case.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromHex } from '@svc/core/primitives';
import { scittVerify } from '@svc/core/scitt';
import { opensslClassical } from '../../src/crypto/classical.js';

const dir = join(import.meta.dirname, '../../../../test-vectors/external/wycheproof');
type Case = { tcId: number; msg: string; sig: string; ctx?: string; result: string };
type File = { numberOfTests: number; testGroups: { publicKey: string | { pk?: string; uncompressed?: string }; tests: Case[] }[] };
const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as File;
const hex = (h: string) => fromHex(h) ?? new Uint8Array(0);
const cases = (file: File) =>
  file.testGroups.flatMap((g) =>
    g.tests.map((t) => ({
      pk: hex(typeof g.publicKey === 'string' ? g.publicKey : (g.publicKey.pk ?? g.publicKey.uncompressed ?? '')),
      t,
    })),
  );

describe('Wycheproof on OpenSSL (node:crypto)', () => {
  it.each([
    ['Ed25519', 'ed25519_test.json'],
    ['ES256', 'ecdsa_secp256r1_sha256_p1363_test.json'],
  ] as const)('%s: every case, OpenSSL alone and behind scittVerify', (alg, f) => {
    const file = read(f);
    const all = cases(file);
    expect(all.length).toBe(file.numberOfTests);
    for (const { pk, t } of all) {
      const want = t.result === 'valid';
      const [msg, sig] = [hex(t.msg), hex(t.sig)];
      // undefined: OpenSSL would not take the key; the core then decides with noble.
      const openssl = opensslClassical(alg, pk, msg, sig);
      expect(openssl ?? scittVerify(alg, pk, msg, sig), `${alg} tcId ${t.tcId} (OpenSSL)`).toBe(want);
      expect(scittVerify(alg, pk, msg, sig, undefined, opensslClassical), `${alg} tcId ${t.tcId}`).toBe(want);
    }
  });
});
