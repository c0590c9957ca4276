#!/usr/bin/env node
// The `svc` command. This small file is committed so that npm can link the bin on the first
// `npm install` of a fresh clone (it links only targets that exist then); the CLI itself is built
// into dist/ by the install's `prepare` step.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('svc: the CLI is not built yet; run `npm run build` at the repository root\n');
  process.exit(2);
}
await import(cli.href);
