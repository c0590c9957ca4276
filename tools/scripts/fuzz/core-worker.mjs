// One core-fuzzer process of the campaign: runs fuzzVerify (odd seeds: the C2SP formats fuzzer,
// fuzzTlog) for two thirds of its time and the unsigned-parts fuzzer (fuzzUnsigned: unsigned parts,
// own keys, crossed kinds) for the rest, and prints their stats added up.
// With SVC_FUZZ_NATIVE set (under Node >= 24) verification runs on the server's node:crypto
// backend, about ten times as many inputs a second as noble.
import { fuzzTlog, fuzzUnsigned, fuzzVerify } from '@svc/core/arbitraries';

const [seed, end] = process.argv.slice(2).map(Number);
const until = Date.now() + ((end - Date.now()) * 2) / 3;
let crypto;
if (process.env.SVC_FUZZ_NATIVE) {
  const { nativeCrypto } = await import('../../../packages/server/dist/index.js');
  crypto = nativeCrypto() ?? undefined;
  if (!crypto) throw new Error('SVC_FUZZ_NATIVE is set but node:crypto has no ML-DSA-87 here');
}
let stats;
if (seed % 2 === 1) {
  const t = await fuzzTlog({ seed, now: () => performance.now(), stop: () => Date.now() >= until });
  // Reported in the bundle fuzzer's terms, so the campaign adds them up the same way.
  stats = {
    inputs: t.inputs,
    verdicts: t.inputs,
    passed: t.accepted,
    refusals: t.refusals,
    maxMs: t.maxMs,
    findings: t.findings,
    backend: 'tlog',
  };
} else {
  stats = {
    ...(await fuzzVerify({ seed, now: () => performance.now(), stop: () => Date.now() >= until, ...(crypto ? { crypto } : {}) })),
    backend: crypto?.name ?? 'default',
  };
}
const u = await fuzzUnsigned({ seed, now: () => performance.now(), stop: () => Date.now() >= end });
stats.inputs += u.inputs;
stats.verdicts += u.inputs;
stats.maxMs = Math.max(stats.maxMs, u.maxMs);
stats.findings = [...stats.findings, ...u.findings];
stats.unsigned = u.families;
process.stdout.write(`${JSON.stringify(stats)}\n`);
