// Run under Node 24 (tools/scripts/test-runtimes.mjs): the node:crypto backend against noble and
// WebCrypto on every test vector, every applicable ACVP case and every mutation, and signatures
// made by any backend verify under every other.
import { describe, expect, it } from 'vitest';
import { nobleBackend, webCryptoBackend } from '@svc/core';
import { backendReport, nodeCryptoBackend } from '../../src/internal.js';
import { acvpAgree, mutationsAgree, signaturesInteroperate, vectorsAgree } from '../../../core/test/differential.js';

const native = nodeCryptoBackend();

describe('node:crypto backend (Node >= 24)', () => {
  it('is detected on this runtime and computes both FIPS algorithms', () => {
    console.log(`Node ${process.versions.node}: ${JSON.stringify(backendReport(native))}`);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
    expect(native?.name).toBe('node:crypto');
    expect(backendReport(native)).toEqual({ 'ML-DSA-87': 'node:crypto', 'SLH-DSA-SHA2-256f': 'node:crypto', 'Falcon-1024': 'noble' });
  });

  it('agrees with noble on every test vector', async () => {
    expect(await vectorsAgree(native!)).toBeGreaterThan(70);
  });

  it('agrees with noble on every applicable ACVP sigVer case', async () => {
    expect(await acvpAgree(native!)).toBeGreaterThan(15);
  });

  it('agrees with noble on mutated keys, signatures, messages and contexts (0, 255, 256 bytes)', async () => {
    await mutationsAgree(native!, 300);
  });

  it('WebCrypto agrees too, and signatures interoperate across all three', async () => {
    const web = await webCryptoBackend();
    expect(web?.name).toBe('webcrypto');
    await mutationsAgree(web!, 100);
    await signaturesInteroperate(native!);
    await signaturesInteroperate(nobleBackend);
  });
});
