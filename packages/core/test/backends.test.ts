// The crypto backend seam: the backend each runtime picks, and differential checks of every
// backend available here against noble.
import { describe, expect, it } from 'vitest';
import { defaultCrypto, nobleBackend, webCryptoBackend, type CryptoBackend } from '../src/crypto/backend.js';
import { acvpAgree, asyncNoble, mutationsAgree, signaturesInteroperate, vectorsAgree } from './differential.js';

const nodeMajor = Number((globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node?.split('.')[0] ?? 0);
const inBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined';

describe('backend selection', () => {
  it('picks WebCrypto where the runtime has ML-DSA-87, noble elsewhere, and says which', async () => {
    const b = await defaultCrypto();
    console.log(`crypto backend for ML-DSA-87: ${b.name} (${inBrowser ? 'browser' : `Node ${nodeMajor}`})`);
    if (nodeMajor >= 24 || inBrowser) expect(b.name).toBe('webcrypto');
    else if (nodeMajor > 0 && nodeMajor < 24) expect(b.name).toBe('noble');
    expect(await defaultCrypto()).toBe(b);
  });

  it('a subtle that lacks the algorithm, fails the check, or throws is not used', async () => {
    expect(await webCryptoBackend(null)).toBeNull();
    const broken = {
      generateKey: async () => {
        throw new Error('NotSupportedError');
      },
      importKey: async () => ({}),
      verify: async () => true,
    };
    expect(await webCryptoBackend(broken)).toBeNull();
    // An engine that says yes to everything is caught by the wrong-context check.
    const liar = {
      generateKey: async () => ({ publicKey: {}, privateKey: {} }),
      exportKey: async () => new ArrayBuffer(2592),
      importKey: async () => ({}),
      sign: async () => new ArrayBuffer(4627),
      verify: async () => true,
    };
    expect(await webCryptoBackend(liar)).toBeNull();
  });
});

const backends: Promise<CryptoBackend>[] = [Promise.resolve(nobleBackend), Promise.resolve(asyncNoble), defaultCrypto()];

describe('differential: every backend agrees with noble', () => {
  for (const [i, label] of ['noble', 'noble (async, plan path)', 'default'].entries()) {
    it(`${label}: every test vector`, async () => {
      expect(await vectorsAgree(await backends[i]!)).toBeGreaterThan(70);
    });
    it(`${label}: every applicable ACVP sigVer case`, async () => {
      expect(await acvpAgree(await backends[i]!)).toBeGreaterThan(15);
    });
    it(`${label}: mutated keys, signatures, messages and contexts`, async () => {
      await mutationsAgree(await backends[i]!, 150);
    });
    it(`${label}: signatures interoperate`, async () => {
      await signaturesInteroperate(await backends[i]!);
    });
  }
});
