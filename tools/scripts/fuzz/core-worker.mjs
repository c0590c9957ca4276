// One core-fuzzer process of the campaign: runs fuzzVerify until the deadline (odd seeds run the
// C2SP formats fuzzer, fuzzTlog, instead), prints its stats.
// With SVC_FUZZ_NATIVE set (under Node >= 24) verification runs on the server's node:crypto
// backend, about ten times as many inputs a second as noble.
import { fuzzTlog, fuzzVerify } from '@svc/core/arbitraries';

const [seed, until] = process.argv.slice(2).map(Number);
let crypto;
if (process.env.SVC_FUZZ_NATIVE) {
  const { nodeCryptoBackend } = await import('../../../packages/server/dist/index.js');
  crypto = nodeCryptoBackend() ?? undefined;
  if (!crypto) throw new Error('SVC_FUZZ_NATIVE is set but node:crypto has no ML-DSA-87 here');
}
if (seed % 2 === 1) {
  const t = await fuzzTlog({ seed, now: () => performance.now(), stop: () => Date.now() >= until });
  // Reported in the bundle fuzzer's terms, so the campaign adds them up the same way.
  process.stdout.write(
    `${JSON.stringify({ inputs: t.inputs, verdicts: t.inputs, passed: t.accepted, refusals: t.refusals, maxMs: t.maxMs, findings: t.findings, backend: 'tlog' })}\n`,
  );
} else {
  const stats = await fuzzVerify({ seed, now: () => performance.now(), stop: () => Date.now() >= until, ...(crypto ? { crypto } : {}) });
  process.stdout.write(`${JSON.stringify({ ...stats, backend: crypto?.name ?? 'default' })}\n`);
}
