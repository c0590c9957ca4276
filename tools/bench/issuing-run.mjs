#!/usr/bin/env node
// npm run bench:issuing: the issuing benchmark alone, on Node 24 (native ML-DSA-87) when it can be
// had, else on this Node with a note that the figures are noble's.
import { spawnSync } from 'node:child_process';
import { ensureNode24 } from '../lib/node24.mjs';

const node = ensureNode24();
if (!node) console.log('Node 24 is not available here: issuing measured on this Node, with noble signing ML-DSA-87');
const r = spawnSync(
  node ?? process.execPath,
  ['--no-warnings', new URL('./issuing.mjs', import.meta.url).pathname, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
process.exit(r.status ?? 1);
