#!/usr/bin/env node
// npm start: the reference server on embedded defaults, on the runtime @svc/server needs (Node >=
// 24: node:sqlite, and OpenSSL 3.5's ML-DSA-87 and SLH-DSA). On an older system Node it runs the
// server under Node 24 from the npm registry (installed once into node_modules/.cache). If Node 24
// cannot be had, it says so and tries the system Node, where svc serve refuses the embedded SQLite
// store with the reason and the fix (PostgreSQL through SVC_DATABASE_URL still serves there).
import { join } from 'node:path';
import { buildIfStale } from '../lib/build-if-stale.mjs';
import { ensureNode24, relay } from '../lib/node24.mjs';
import { root } from '../lib/root.mjs';

buildIfStale();

const cli = join(root, 'packages', 'server', 'dist', 'cli.js');
const args = ['serve', ...process.argv.slice(2)];
let node = process.execPath;
const env = { ...process.env };

if (Number(process.versions.node.split('.')[0]) < 24) {
  const n24 = ensureNode24();
  if (n24) node = n24;
  else console.error(`svc: Node 24 could not be installed; trying Node ${process.versions.node}, which has no node:sqlite`);
}

relay(node, [cli, ...args], { env });
