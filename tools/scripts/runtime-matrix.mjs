#!/usr/bin/env node
// The runtime matrix, as a user would install the library: `npm pack` of @svc/core and
// @svc/server, installed into a temporary consumer outside the repository; the tarballs' contents,
// the CLI, CommonJS and TypeScript (node16 and bundler) checked there, and the server's app served
// by Bun.serve and Deno.serve (tools/scripts/matrix/serve.mjs); then every test vector
// replayed in Node 20 (this
// one), Node 24, Bun, Deno, workerd and headless Chromium, each printing the crypto backend it
// picked and its per-verify time against noble. Bun, Deno and workerd come from the npm registry
// into node_modules/.cache/runtimes. Exits 1 when any runtime disagrees with a vector.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../lib/chromium.mjs';
import { REQUIRED } from '../lib/system.mjs';
import { buildIfStale } from '../lib/build-if-stale.mjs';
import { ensureNode24 } from '../lib/node24.mjs';
import { root } from '../lib/root.mjs';

const RUNTIMES = ['bun@1.4.5', 'deno@2.9.6', 'workerd@1.20261117.1'];
const sh = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
};

// 1. Pack and install as a stranger would. The packages are packed from the current build (made here when a source is newer): prepack would
// build both again, a minute of CPU for the same files.
const work = mkdtempSync(join(tmpdir(), 'svc-matrix-'));
buildIfStale();
const pack = (ws) =>
  join(
    work,
    sh('npm', ['pack', '-w', ws, '--pack-destination', work, '--silent', '--ignore-scripts'], { cwd: root }).trim().split('\n').pop(),
  );
const tarball = pack('@svc/core');
const serverTarball = pack('@svc/server');
const consumer = join(work, 'consumer');
mkdirSync(consumer);
writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
sh(
  'npm',
  ['install', '--no-audit', '--no-fund', '--silent', '--ignore-scripts', tarball, serverTarball, '@types/node@20', 'fast-check@4'],
  { cwd: consumer },
);
const vectors = readdirSync(join(root, 'test-vectors'))
  .filter((f) => f.endsWith('.json'))
  .flatMap((f) => JSON.parse(readFileSync(join(root, 'test-vectors', f), 'utf8')).cases);
// The C2SP vectors (notes, tiles, tlog-proofs) through @svc/core/tlog, in every runtime too.
const tlog = Object.fromEntries(
  readdirSync(join(root, 'test-vectors', 'tlog')).map((f) => [
    f.replace('.json', ''),
    JSON.parse(readFileSync(join(root, 'test-vectors', 'tlog', f), 'utf8')),
  ]),
);
const tlogCount = tlog.notes.vkeys.length + tlog.notes.notes.length + tlog['tlog-proof'].cases.length + 1;
writeFileSync(join(consumer, 'vectors.mjs'), `export default ${JSON.stringify(vectors)};\nexport const tlog = ${JSON.stringify(tlog)};\n`);
for (const f of ['smoke.mjs', 'run-node.mjs', 'worker.mjs', 'serve.mjs'])
  writeFileSync(join(consumer, f), readFileSync(join(root, 'tools', 'scripts', 'matrix', f)));

// 2. The runtimes.
const rtDir = join(root, 'node_modules', '.cache', 'runtimes');
const bin = (n) => join(rtDir, 'node_modules', '.bin', n);
if (!RUNTIMES.every((r) => existsSync(bin(r.split('@')[0])))) {
  mkdirSync(rtDir, { recursive: true });
  sh('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--silent', '--prefix', rtDir, ...RUNTIMES]);
}

const results = [];
function parse(label, out) {
  const line = out.split('\n').find((l) => l.startsWith('SMOKE ')) ?? (out.trim().startsWith('{') ? `SMOKE ${out.trim()}` : null);
  const r = line ? JSON.parse(line.slice(6)) : { passed: 0, total: vectors.length + tlogCount, error: out.slice(-1500) };
  results.push({ runtime: label, ...r });
}
function runCli(label, cmd, args) {
  const r = spawnSync(cmd, args, { cwd: consumer, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  parse(label, `${r.stdout}\n${r.status !== 0 ? r.stderr : ''}`);
}

runCli(`Node ${process.versions.node}`, process.execPath, ['run-node.mjs']);
const n24 = ensureNode24({ quiet: true });
runCli(`Node ${spawnSync(n24, ['--version'], { encoding: 'utf8' }).stdout.trim().slice(1)}`, n24, ['--no-warnings', 'run-node.mjs']);
runCli(`Bun ${sh(bin('bun'), ['--version']).trim()}`, bin('bun'), ['run-node.mjs']);
runCli(`Deno ${sh(bin('deno'), ['--version']).split('\n')[0].split(' ')[1]}`, bin('deno'), [
  'run',
  '--allow-read',
  '--allow-env',
  'run-node.mjs',
]);

// workerd: one bundled module behind a socket on loopback.
await build({
  entryPoints: [join(consumer, 'worker.mjs')],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  outfile: join(consumer, 'worker-bundle.js'),
  logLevel: 'error',
});
// A port the system has just handed out, not one picked at random: the main test run, beside
// this one, picks random ports in the same range.
const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
writeFileSync(
  join(consumer, 'config.capnp'),
  `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .w) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const w :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker-bundle.js") ],
  compatibilityDate = "2026-11-01",
);
`,
);
const wd = spawn(bin('workerd'), ['serve', 'config.capnp'], { cwd: consumer, stdio: ['ignore', 'ignore', 'pipe'] });
let wdErr = '';
wd.stderr.on('data', (c) => (wdErr += c));
let wdOut = null;
for (let i = 0; i < 100 && wdOut === null; i++) {
  await new Promise((r) => setTimeout(r, 200));
  wdOut = await fetch(`http://127.0.0.1:${port}/`).then(
    (r) => r.text(),
    () => null,
  );
}
wd.kill();
parse(`workerd ${sh(bin('workerd'), ['--version']).trim().split(' ').pop()}`, wdOut ?? wdErr);

// Chromium: the same module bundled for the browser, served from loopback (a secure context).
const chromium = CHROMIUM_PATH;
if (existsSync(chromium)) {
  await build({
    entryPoints: [join(consumer, 'smoke.mjs')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: join(consumer, 'browser-bundle.js'),
    logLevel: 'error',
  });
  const js = readFileSync(join(consumer, 'browser-bundle.js'));
  const server = createServer((req, res) => {
    if (req.url === '/smoke.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><script type="module">import { smoke } from "/smoke.js"; window.result = smoke();</script>');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { chromium: pw } = await import('playwright');
  const browser = await pw.launch({ executablePath: chromium, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const r = await page.evaluate(() => window.result);
    parse(`Chromium ${browser.version()}`, `SMOKE ${JSON.stringify(r)}`);
  } catch (e) {
    parse('Chromium', String(e));
  } finally {
    await browser.close();
    server.close();
  }
} else if (REQUIRED) {
  results.push({
    runtime: 'Chromium',
    passed: 0,
    total: vectors.length + tlogCount,
    error: `${chromium} missing (apt-get install -y chromium)`,
  });
} else console.log(`skipped: the packed tarball in Chromium (no ${chromium}; outside CI)`);

// 3. The packages as a stranger uses them: what the tarballs hold, the CLI, CommonJS, TypeScript.
const packaging = [];
const check = (name, fn) => {
  try {
    const detail = fn();
    packaging.push({ name, ok: true, detail });
  } catch (e) {
    packaging.push({ name, ok: false, detail: String(e.message ?? e).slice(0, 600) });
  }
};
const listing = (t) => sh('tar', ['-tzf', t]);
for (const t of [tarball, serverTarball]) {
  check(`${t.split('/').pop()} holds LICENSE and README, no src/`, () => {
    const files = listing(t);
    if (!files.includes('package/LICENSE') || !files.includes('package/README.md')) throw new Error('LICENSE or README missing');
    if (/^package\/src\//m.test(files)) throw new Error('src/ shipped');
    const pkg = JSON.parse(sh('tar', ['-xzOf', t, 'package/package.json']));
    if (pkg.publishConfig?.access !== 'public') throw new Error('publishConfig.access is not public');
    return `${files.trim().split('\n').length} files`;
  });
}
const svcBin = join(consumer, 'node_modules', '.bin', 'svc');
// The server needs Node >= 24: its bin runs there, and on an older Node says so and exits 2.
check('svc --version from the installed tarball, on Node 24', () => sh(n24, [svcBin, '--version']).trim());
if (Number(process.versions.node.split('.')[0]) < 24)
  check(`svc on Node ${process.versions.node} refuses, naming what it needs`, () => {
    const r = spawnSync(process.execPath, [svcBin, '--version'], { encoding: 'utf8' });
    if (r.status !== 2 || !r.stderr.includes('@svc/server needs Node >= 24')) throw new Error(`exit ${r.status}: ${r.stderr}`);
    return r.stderr.trim();
  });
const plainCase = vectors.find((c) => c.description === 'plain answer, pinned key: passes and is recognised');
writeFileSync(join(consumer, 'proof.json'), JSON.stringify(plainCase.input));
writeFileSync(join(consumer, 'keys.json'), JSON.stringify({ keys: plainCase.trustedKeys }));
check(
  'svc verify proof.json --keys keys.json exits 0',
  () => sh(n24, [svcBin, 'verify', 'proof.json', '--keys', 'keys.json'], { cwd: consumer }).split('\n')[0],
);
// The server's app as fetch(Request) -> Response, served by each runtime's own HTTP server.
for (const [label, cmd, args] of [
  ['Bun.serve', bin('bun'), ['serve.mjs']],
  ['Deno.serve', bin('deno'), ['run', '--allow-all', 'serve.mjs']],
])
  check(`the server's app (assembleServer, app.fetch) served by ${label}: health, keys, a verification, 404, 413`, () => {
    const out = sh(cmd, args, { cwd: consumer, env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 });
    const line = out.split('\n').find((l) => l.startsWith('SERVE ')) ?? out.slice(-600);
    const want = { health: 200, keys: true, verify: true, missing: 404, tooLarge: 413, nosniff: 'nosniff' };
    if (!line.startsWith('SERVE ') || JSON.stringify(JSON.parse(line.slice(6))) !== JSON.stringify(want)) throw new Error(line);
    return line.slice(6);
  });
check('CommonJS require of @svc/core and @svc/core/schemas', () =>
  sh(
    process.execPath,
    [
      '-e',
      "const c = require('@svc/core'); const s = require('@svc/core/schemas'); if (typeof c.verifyBundle !== 'function' || !s.ProofBundle) process.exit(1); console.log('ok')",
    ],
    { cwd: consumer },
  ).trim(),
);
writeFileSync(
  join(consumer, 'use.ts'),
  `import { verifyBundle, type VerifyResponse, type CryptoBackend } from '@svc/core';
import * as schemas from '@svc/core/schemas';
import { testKeys } from '@svc/core/testing';
import { loadConfig, type Config } from '@svc/server';
export async function check(doc: unknown, crypto?: CryptoBackend): Promise<boolean> {
  const r: VerifyResponse = await verifyBundle(doc, { trustedKeys: testKeys().trustedKeys, ...(crypto ? { crypto } : {}) });
  const c: Config = loadConfig({});
  return r.verdict.overallOk && typeof schemas.ProofBundle === 'object' && c.port > 0;
}
`,
);
// Both resolutions load the same declaration files (every entry's exports name one types file
// whatever the conditions), so they are checked once, under node16 (the stricter about import
// paths), with every other declaration the program reaches (@types/node, TypeBox's): under
// TypeScript 5.9 that check alone was about 22 s of CPU a run on the CI machine, so it runs on
// TypeScript 7 (the native compiler, as the repository's own type checks do), the newest a
// consumer may have. The bundler run checks, under the 5.9 most consumers have today, that a
// consumer's code type-checks against the declarations.
const TSC = {
  5.9: join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
  7: join(root, 'node_modules', 'typescript-native', 'bin', 'tsc'),
};
for (const [mod, res, libCheck, version] of [
  ['node16', 'node16', true, 7],
  ['esnext', 'bundler', false, '5.9'],
]) {
  check(`TypeScript ${version}, module ${mod}, moduleResolution ${res}${libCheck ? ', declaration files checked too' : ''}`, () => {
    sh(
      process.execPath,
      [
        TSC[version],
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        String(!libCheck),
        '--target',
        'es2022',
        '--module',
        mod,
        '--moduleResolution',
        res,
        '--types',
        'node',
        'use.ts',
      ],
      { cwd: consumer },
    );
    return 'type-checks';
  });
}

console.log(`\n== packages from ${tarball.split('/').pop()} and ${serverTarball.split('/').pop()}, installed outside the repository`);
for (const p of packaging) console.log(`${p.ok ? 'ok  ' : 'FAIL'} ${p.name}${p.detail ? `: ${p.detail}` : ''}`);

console.log(`\n== runtime matrix: @svc/core from ${tarball.split('/').pop()}, ${vectors.length} vectors`);
for (const r of results) {
  const ms = r.msPerVerify
    ? Object.entries(r.msPerVerify)
        .map(([k, v]) => `${k} ${v} ms`)
        .join(', ')
    : '';
  console.log(
    `${r.passed === r.total ? 'ok  ' : 'FAIL'} ${r.runtime.padEnd(18)} backend ${String(r.backend ?? '-').padEnd(10)} ${r.passed}/${r.total} vectors   per verify: ${ms}${r.error ? `\n     ${r.error}` : ''}${r.failed?.length ? `\n     failed: ${r.failed.join('; ')}` : ''}`,
  );
}
if (process.argv.includes('--json'))
  writeFileSync(join(root, 'node_modules', '.cache', 'runtime-matrix.json'), JSON.stringify(results, null, 1));
process.exit(results.every((r) => r.passed === r.total && r.total > 0) && packaging.every((p) => p.ok) ? 0 : 1);
