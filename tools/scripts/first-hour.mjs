#!/usr/bin/env node
// A stranger's first hour, as `npm test` runs it (#31): the repository's committed HEAD cloned into a
// temporary folder with nothing beside it (no ../shared), installed, and the README followed:
// `npm start`, then every runnable block of the README and the guides against that server (its port
// in place of 8080, and free ports for the others),
// each exiting as the README says; then the usage errors the exit-code table promises, and Ctrl-C.
// `npm install` must leave the clone's `git status` clean (a lock file stable on this platform).
// Exits 1 with what differed; prints one line per command.
// With --reuse-build (as `npm test` runs it) the clone is given this checkout's build when the
// build's inputs here are exactly the committed ones and the build is newer than them: the clone
// would build the same bytes (.ci/run's own fresh clone builds in its `npm install`), and the
// build was a third of this script's CPU; what that build printed (recorded by build-if-stale) is
// held to the install's rule. Without it, the install builds as a stranger's does.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILDS, buildOutputOf, staleBecause } from '../lib/build-if-stale.mjs';
import { root } from '../lib/root.mjs';

const keep = process.argv.includes('--keep');
const reuseBuild = process.argv.includes('--reuse-build');
const failures = [];
const fail = (what) => {
  failures.push(what);
  console.log(`FAIL ${what}`);
};

/** The documents whose runnable blocks a stranger runs, in this order (the README first; the
 *  formats and issuing guides use what the CLI tour made). */
export const RUNNABLE_FILES = ['README.md', 'docs/cli.md', 'docs/formats.md', 'docs/issuing.md'];

/** The lines of every `sh` block marked `<!-- runnable -->` in a Markdown text, comments kept (they state the exit code). */
export function runnableLines(markdown) {
  return [...markdown.matchAll(/<!-- runnable -->\n```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n').filter((l) => l.trim()));
}

/** Whether a README line starts a server in the background (`... &`, perhaps with a comment after). */
export function inBackground(line) {
  return /&\s*(#.*)?$/.test(line);
}

/** The exit code a README line promises: its comment's "exit N:" (a plain statement), else 0
 *  ("exit 3 on rollback" names a condition this healthy log does not meet). */
export function promisedExit(line) {
  const m = /#\s*exit (\d):/.exec(line);
  return m ? Number(m[1]) : 0;
}

/**
 * What an install (with its build) printed that a user would have to read: npm's warnings and the
 * build's. One is expected and documented (docs/development.md): on a Node older than 24, that
 * @svc/server itself needs 24 (npm checks a workspace's engines against the Node running npm).
 */
export function installNoise(output) {
  const lines = output.split('\n');
  const engine = lines.filter((l) => l.startsWith('npm warn EBADENGINE'));
  const packages = engine.filter((l) => l.includes('package:'));
  // (npm prints it only where the Node running npm is older than 24.)
  const expected = packages.every((l) => l.includes("package: '@svc/server@"));
  return lines.filter(
    (l) =>
      (/^npm warn /.test(l) && !(expected && l.startsWith('npm warn EBADENGINE'))) ||
      /\[WARNING\]|Generated an empty chunk|Ignoring this import/.test(l),
  );
}

/** The local ports a README line names after its ports were moved (PORT=, 127.0.0.1:, an example's argument). */
export function portsNamed(cmd) {
  return [...cmd.matchAll(/(?:PORT=|LISTEN=127\.0\.0\.1:|\.mjs )(\d+)\b/g)].map((m) => Number(m[1]));
}

/** A README line with `npx svc` run as the installed binary it resolves to. */
export function viaBin(cmd, bin) {
  return cmd.replace(/\bnpx svc\b/g, bin);
}

/** Whether something accepts a connection on 127.0.0.1:port now. */
function accepts(port) {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => s.destroy() && resolve(true));
    s.once('error', () => resolve(false));
  });
}

/** Why this checkout's build cannot stand for the clone's (a sentence), or null when it can: its
 *  inputs, and what the build reads besides (the lock file, the shared compiler settings), are the
 *  committed ones, and the build is newer than them. */
export function reuseRefused(dir = root) {
  const inputs = [...BUILDS.flatMap((b) => b.inputs), 'package-lock.json', 'tsconfig.base.json'];
  const changed = spawnSync('git', ['status', '--porcelain', '--', ...inputs], { cwd: dir, encoding: 'utf8' });
  if (changed.status !== 0) return `git status failed: ${changed.stderr.trim()}`;
  if (changed.stdout.trim()) return `build inputs differ from the commit:\n${changed.stdout.trim()}`;
  return staleBecause(dir) ?? (buildOutputOf(dir) === null ? 'no record of what the build printed (made by hand?)' : null);
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function main() {
  const base = mkdtempSync(join(tmpdir(), 'svc-first-hour-'));
  const dir = join(base, 'svc');
  const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', ...opts });
  let server = null;
  const background = [];
  try {
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', root, dir]);
    if (existsSync(join(base, 'shared'))) fail('a shared folder beside the clone');
    let given = false;
    if (reuseBuild) {
      const refused = reuseRefused();
      if (refused) console.log(`build: the clone builds its own (${refused.split('\n')[0]})`);
      else {
        // Copied after the clone's sources were written: newer than them, as a build would be.
        for (const b of BUILDS) {
          const dist = b.output.slice(0, b.output.lastIndexOf('/'));
          cpSync(join(root, dist), join(dir, dist), { recursive: true });
        }
        console.log("build: this checkout's, its inputs being the commit's (the install's prepare step finds it fresh)");
        given = true;
      }
    }
    const started = Date.now();
    const install = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (install.status !== 0) return fail(`npm install exited ${install.status}: ${install.stderr.slice(-2000)}`);
    console.log(`npm install: ${((Date.now() - started) / 1000).toFixed(0)} s`);
    // build-if-stale says "svc: building (why)" when it builds.
    if (given && /svc: building/.test(install.stderr))
      fail(`the install built again although the build was given:\n${install.stderr.slice(-500)}`);
    const noise = installNoise(`${install.stdout}\n${install.stderr}${given ? `\n${buildOutputOf()}` : ''}`);
    if (noise.length) fail(`npm install printed what a user must read:\n${noise.join('\n')}`);
    const status = run('git', ['status', '--porcelain']).stdout.trim();
    if (status) fail(`npm install changed the clone:\n${status}`);

    // The README's first command, on a port of our own.
    const port = await freePort();
    const data = join(dir, 'data');
    server = spawn('npm', ['start'], { cwd: dir, env: { ...process.env, PORT: String(port), SVC_PROCESSES: '1' }, detached: true });
    let log = '';
    server.stdout.on('data', (c) => (log += c));
    server.stderr.on('data', (c) => (log += c));
    const exited = new Promise((r) => server.on('exit', (code) => r(code)));
    for (let i = 0; i < 3000 && !log.includes('"listening"') && server.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
    if (!log.includes('"listening"')) return fail(`npm start did not listen:\n${log.slice(-3000)}`);
    console.log(`npm start: listening on ${port}, data in ${existsSync(data) ? 'data/' : '?'}`);

    // The README's other ports, each moved to one free here (the same one wherever it appears).
    const ports = new Map();
    for (const p of ['8090', '8081', '8443', '8091']) ports.set(p, String(await freePort()));
    const commands = RUNNABLE_FILES.flatMap((f) => runnableLines(readFileSync(join(dir, f), 'utf8')));
    // `npx svc` resolves the clone's own binary: the first line that says it runs it so, the rest
    // run that binary directly (npx's resolution is npm's, and each npx start cost ~2 s of CPU).
    const svcBin = join(dir, 'node_modules', '.bin', 'svc');
    let npxTried = false;
    for (const line of commands) {
      let cmd = line.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
      if (npxTried) cmd = viaBin(cmd, svcBin);
      else npxTried = /\bnpx svc\b/.test(cmd);
      for (const [from, to] of ports) cmd = cmd.replace(new RegExp(`(PORT=|127\\.0\\.0\\.1:|\\.mjs )${from}\\b`, 'g'), `$1${to}`);
      if (inBackground(cmd)) {
        // A server of its own (a witness, a second svc serve, the echo model): started, seen to
        // listen, stopped at the end.
        const child = spawn('bash', ['-c', cmd.replace(/&\s*(#.*)?$/, '')], { cwd: dir, detached: true });
        background.push(child);
        let wlog = '';
        child.stdout.on('data', (c) => (wlog += c));
        child.stderr.on('data', (c) => (wlog += c));
        // Listening means every port the line names accepts a connection: a server with a second
        // listener (SVC_ISSUE_LISTEN) logs "listening" for its public port before the other opens.
        const want = portsNamed(cmd);
        const listening = async () => want.length > 0 && (await Promise.all(want.map(accepts))).every(Boolean);
        for (let i = 0; i < 600 && child.exitCode === null && !(await listening()); i++) await new Promise((r) => setTimeout(r, 100));
        if (!(await listening())) fail(`${line}\n  did not listen on ${want.join(', ')}: ${wlog.slice(-1000)}`);
        else console.log(`ok   (listening) ${line}`);
        continue;
      }
      const r = run('bash', ['-c', cmd], { timeout: 120_000 });
      const want = promisedExit(line);
      const says = /# (\d{3}) /.exec(line)?.[1];
      if (r.status !== want) fail(`${line}\n  exited ${r.status}, the README says ${want}\n  ${r.stderr.slice(-1500)}`);
      // A curl line whose comment names a status prints it: it must be that status.
      else if (says && r.stdout.trim() !== says) fail(`${line}\n  answered ${r.stdout.trim()}, the README says ${says}`);
      else console.log(`ok   (exit ${want}) ${line}`);
    }
    // The exit-code table's usage errors.
    for (const [args, want, why] of [
      [[], 2, 'no command'],
      [['issue', '--data-dir', 'no-such-folder', '--answer', 'a'], 2, 'a data folder with no keyring'],
      [['verify', 'no-such-file.json'], 2, 'unreadable input'],
    ]) {
      const r = run(svcBin, args);
      if (r.status !== want) fail(`svc ${args.join(' ')} (${why}) exited ${r.status}, the table says ${want}`);
      else console.log(`ok   (exit ${want}) svc ${args.join(' ')}   # ${why}`);
    }
    if (existsSync(join(dir, 'no-such-folder'))) fail('svc issue made the mistyped data folder');

    for (const child of background.splice(0)) {
      // Ctrl-C to each background server too: it stops.
      const gone = new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      process.kill(-child.pid, 'SIGINT');
      if ((await Promise.race([gone, new Promise((r) => setTimeout(() => r('timeout'), 15_000))])) === 'timeout')
        fail(`a background server (${child.spawnargs.at(-1)}) did not stop within 15 s of Ctrl-C`);
    }
    // Ctrl-C: the whole foreground group.
    process.kill(-server.pid, 'SIGINT');
    // npm itself ends by the signal it was sent (a shell's 130); what counts is the server's own
    // graceful stop, said last, with nothing left serving.
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000))]);
    server = null;
    const lines = log.split('\n').filter((l) => l.startsWith('{'));
    if (code === 'timeout') fail('npm start did not stop within 30 s of Ctrl-C');
    else if (!lines.at(-1)?.includes('"event":"stopped"'))
      fail(`Ctrl-C: the server's last line is not "stopped":\n${lines.slice(-3).join('\n')}`);
    else if (
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => true,
        () => false,
      )
    )
      fail('Ctrl-C: something still serves the port');
    else console.log(`ok   (stopped, npm ${code === null ? 'ended by SIGINT' : `exit ${code}`}) Ctrl-C to npm start`);
  } finally {
    // Whatever happened above, nothing this run started outlives it.
    for (const p of [server, ...background]) {
      try {
        if (p) process.kill(-p.pid, 'SIGKILL');
      } catch {} // the group is gone already
    }
    if (!keep) rmSync(base, { recursive: true, force: true });
    else console.log(`kept ${base}`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  await main();
  console.log(failures.length ? `first hour: ${failures.length} failures` : 'first hour: every README command exits as the README says');
  process.exit(failures.length ? 1 : 0);
}
