#!/usr/bin/env node
// The `svc` command. This small file is committed so that npm can link the bin on the first
// `npm install` of a fresh clone (it links only targets that exist then); the CLI itself is built
// into dist/ by the install's `prepare` step.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('svc: the CLI is not built yet; run `npm run build` at the repository root\n');
  process.exit(2);
}

// @svc/server needs Node >= 24 (node:sqlite; its engines say so). Inside this package's own
// repository, where npm start and npm test fetch a Node 24 for an older system Node, svc runs on
// that one too, so the README's commands work as written on Node 20; an installed package only
// says what it needs.
if (Number(process.versions.node.split('.')[0]) < 24) {
  const repo = new URL('../../../', import.meta.url);
  const tool = new URL('tools/lib/node24.mjs', repo);
  const own = (() => {
    try {
      return JSON.parse(readFileSync(new URL('package.json', repo), 'utf8')).name === 'svc-monorepo' && existsSync(tool);
    } catch {
      return false;
    }
  })();
  const node24 = own ? (await import(tool.href)).ensureNode24({ quiet: true }) : null;
  if (!node24) {
    process.stderr.write(`svc: @svc/server needs Node >= 24 (its SQLite is node:sqlite); this is Node ${process.versions.node}\n`);
    process.exit(2);
  }
  const { spawn } = await import('node:child_process');
  const child = spawn(node24, [fileURLToPath(cli), ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[signal] ?? 1) : 0)));
} else {
  await import(cli.href);
}
