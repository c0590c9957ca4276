// Entry for Node, Bun and Deno: print the smoke result as one line.
import { smoke } from './smoke.mjs';
const r = await smoke();
console.log(`SMOKE ${JSON.stringify(r)}`);
if (r.passed !== r.total) process.exit(1);
