#!/usr/bin/env node
// First step of `npm test`: the system components the suite needs, found where each platform puts
// them (tools/lib/system.mjs). On a machine where this command may install them (root, with
// apt-get: a fresh Debian machine, CI), the missing ones are installed from Debian's packages,
// once. Under CI=true a component still missing stops the run, naming the exact command. Elsewhere
// (a contributor's macOS or other Linux) each missing one skips only the suites that need it, said
// in one line with how to get it. Set SVC_NO_INSTALL=1 to be told instead of installed for. Set
// CHROMIUM_PATH or PG_BINDIR to use another Chromium or other PostgreSQL binaries.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH } from '../lib/chromium.mjs';
import { postgresBinDir } from '../lib/postgres.mjs';
import { GO_MODULES, goLibraries, REQUIRED } from '../lib/system.mjs';

const MAC = process.platform === 'darwin';
const GO_DOWNLOAD = `go mod download ${GO_MODULES.map(([m, v]) => `${m}@${v}`).join(' ')}`;

/** What the suite needs, each with the Debian packages that provide it and how to tell it is here. */
const NEEDS = [
  {
    what: `Chromium at ${CHROMIUM_PATH} (core tests in a browser, the verifier page)`,
    packages: ['chromium'],
    here: () => existsSync(CHROMIUM_PATH),
    skips: 'the browser runs (core in Chromium, the verifier page, the browser example)',
    elsewhere: MAC ? 'brew install --cask chromium' : "your distribution's chromium package, or CHROMIUM_PATH=<a Chromium>",
  },
  {
    what: 'PostgreSQL server binaries, initdb and pg_ctl (the ledger suite runs against a real PostgreSQL it starts itself)',
    packages: ['postgresql'],
    here: () => postgresBinDir() !== null,
    skips: 'the PostgreSQL half of the ledger, issuing, SCITT and witness suites',
    elsewhere: MAC ? 'brew install postgresql@17' : "your distribution's postgresql server package, or PG_BINDIR=<its bin folder>",
  },
  {
    what: "Go with golang.org/x/mod's sumdb/tlog and sumdb/note, and fxamacker/cbor (independent readers of the tiled log, its notes, and SCITT receipts)",
    packages: ['golang-go', 'golang-golang-x-mod-dev', 'golang-github-fxamacker-cbor-dev'],
    here: () => goLibraries() !== null,
    skips: "the Go readers' checks (tiles, notes and SCITT receipts read by code this project did not write)",
    elsewhere: `${MAC ? 'brew install go' : "your distribution's golang package"}, then once: ${GO_DOWNLOAD}`,
  },
  {
    // As root the PostgreSQL binaries run as the postgres user, which Debian's package creates.
    what: 'a postgres system user to run PostgreSQL as (root may not)',
    packages: ['postgresql'],
    here: () => process.getuid?.() !== 0 || postgresBinDir() === null || spawnSync('id', ['-u', 'postgres']).status === 0,
  },
];

const missing = () => NEEDS.filter((n) => !n.here());
const command = (pkgs) => `apt-get update && apt-get install -y ${[...new Set(pkgs)].join(' ')}`;

let gaps = missing();
const mayInstall =
  gaps.length > 0 && process.getuid?.() === 0 && !process.env.SVC_NO_INSTALL && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0;
if (mayInstall) {
  const pkgs = [...new Set(gaps.flatMap((g) => g.packages))];
  console.log(`npm test: installing what the suite needs from Debian's packages: ${pkgs.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...pkgs],
  ]) {
    const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (r.status !== 0) {
      console.error(`npm test: apt-get ${args[0]} failed (exit ${r.status ?? r.signal}); run it yourself: ${command(pkgs)}`);
      process.exit(1);
    }
  }
  gaps = missing();
}
if (gaps.length > 0 && !REQUIRED && !mayInstall) {
  // A contributor's machine: run what can run, and say once what was skipped and how to get it.
  for (const g of gaps.filter((x) => x.skips))
    console.log(`npm test: skipping ${g.skips}: no ${g.what.split(' (')[0]}; to run them: ${g.elsewhere}`);
  process.exit(0);
}
if (gaps.length > 0) {
  console.error('npm test needs system components that are missing:');
  for (const g of gaps) console.error(`  - ${g.what}`);
  console.error(`install them with: ${command(gaps.flatMap((g) => g.packages))}`);
  console.error(
    process.getuid?.() === 0
      ? '(SVC_NO_INSTALL is set, or there is no apt-get here.)'
      : '(as root, npm test installs them itself; or set CHROMIUM_PATH to another Chromium build, PG_BINDIR to other PostgreSQL binaries.)',
  );
  process.exit(1);
}
