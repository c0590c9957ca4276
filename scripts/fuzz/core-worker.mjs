// One core-fuzzer process of the campaign: runs fuzzVerify until the deadline, prints its stats.
// With SVC_FUZZ_NATIVE set (under Node >= 24) verification runs on the server's node:crypto
// backend, about ten times as many inputs a second as noble.
import { fuzzVerify } from '@svc/core/testing';

const [seed, until] = process.argv.slice(2).map(Number);
let crypto;
if (process.env.SVC_FUZZ_NATIVE) {
  const { nodeCryptoBackend } = await import('../../packages/server/dist/index.js');
  crypto = nodeCryptoBackend() ?? undefined;
  if (!crypto) throw new Error('SVC_FUZZ_NATIVE is set but node:crypto has no ML-DSA-87 here');
}
const stats = await fuzzVerify({ seed, now: () => performance.now(), stop: () => Date.now() >= until, ...(crypto ? { crypto } : {}) });
process.stdout.write(`${JSON.stringify({ ...stats, backend: crypto?.name ?? 'default' })}\n`);
