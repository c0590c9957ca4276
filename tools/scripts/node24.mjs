#!/usr/bin/env node
// `npm run -s node24 -- FILE [ARGS]`: a Node program under Node >= 24, what @svc/server needs
// (node:sqlite): this Node when it is new enough, else the Node 24 that npm start and npm test
// fetch once from the npm registry. For the examples that use the server as a library.
import { ensureNode24, relay } from '../lib/node24.mjs';

const node = Number(process.versions.node.split('.')[0]) >= 24 ? process.execPath : ensureNode24({ quiet: true });
if (!node) {
  console.error(`node24: Node ${process.versions.node} is older than 24, and Node 24 could not be installed from the npm registry`);
  process.exit(2);
}
relay(node, process.argv.slice(2));
