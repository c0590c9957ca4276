// One core-fuzzer process of the campaign: runs fuzzVerify until the deadline, prints its stats.
import { fuzzVerify } from '@svc/core/testing';

const [seed, until] = process.argv.slice(2).map(Number);
const stats = await fuzzVerify({ seed, now: () => performance.now(), stop: () => Date.now() >= until });
process.stdout.write(`${JSON.stringify(stats)}\n`);
