#!/usr/bin/env node
// First step of `npm test`: the system components the suite needs, checked before minutes of other
// tests run. Missing ones stop the run at once with the exact command that installs them.
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH } from '../lib/chromium.mjs';
import { postgresBinDir } from '../lib/postgres.mjs';

const missing = [];
const chromium = CHROMIUM_PATH;
if (!existsSync(chromium))
  missing.push({
    what: `Chromium at ${chromium} (core tests in a browser, the verifier page)`,
    fix: 'apt-get update && apt-get install -y chromium',
  });
if (!postgresBinDir())
  missing.push({
    what: 'PostgreSQL server binaries, initdb and pg_ctl (the ledger suite runs against a real PostgreSQL it starts itself)',
    fix: 'apt-get update && apt-get install -y postgresql   (or set PG_BINDIR to the folder holding initdb)',
  });
{
  const { spawnSync } = await import('node:child_process');
  if (
    spawnSync('go', ['version']).status !== 0 ||
    !existsSync('/usr/share/gocode/src/golang.org/x/mod/sumdb/tlog') ||
    !existsSync('/usr/share/gocode/src/github.com/fxamacker/cbor')
  )
    missing.push({
      what: "Go with golang.org/x/mod's sumdb/tlog and sumdb/note, and fxamacker/cbor (independent readers of the tiled log, its notes, and SCITT receipts)",
      fix: 'apt-get update && apt-get install -y golang-go golang-golang-x-mod-dev golang-github-fxamacker-cbor-dev',
    });
}
if (process.getuid?.() === 0 && postgresBinDir()) {
  // As root the binaries run as the postgres user, which the Debian package creates.
  const { spawnSync } = await import('node:child_process');
  if (spawnSync('id', ['-u', 'postgres']).status !== 0)
    missing.push({ what: 'a postgres system user to run PostgreSQL as (root may not)', fix: 'useradd --system postgres' });
}
if (missing.length > 0) {
  console.error('npm test needs system components that are missing:');
  for (const m of missing) console.error(`  - ${m.what}\n    install: ${m.fix}`);
  console.error('(.ci/run installs them; or set CHROMIUM_PATH to another Chromium build, PG_BINDIR to other PostgreSQL binaries.)');
  process.exit(1);
}
