#!/usr/bin/env node
// npm run bench [-- --quick]: ratios against baselines measured in the same run, fixed seeds.
import { machine } from './util.mjs';
import { coreBench } from './core.mjs';

const quick = process.argv.includes('--quick');
console.log(`machine: ${machine()}`);
console.log(`runtime: Node ${process.version} (${process.versions.v8} V8)`);
console.log('\n== core');
const { rawMs } = await coreBench();
const { serverBench } = await import('./server.mjs');
console.log('\n== server');
await serverBench(rawMs);
const { ledgerBench } = await import('./ledger.mjs');
console.log('\n== ledger');
await ledgerBench({ quick });
