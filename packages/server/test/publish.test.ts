// The packages as npm would publish them (#31): each packed (without publishing), clean under
// publint and are-the-types-wrong's esm-only profile, installed from its tarball into an empty
// folder, and its README's example run there: @svc/core's verify and testing entries (with no
// fast-check installed), and @svc/server's `svc` binary. The verify-only bundle size docs/library.md
// states is the one measured here.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { testKeys } from '@svc/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const testKeysOf = (seed: string) => testKeys(seed).trustedKeys;

const root = fileURLToPath(new URL('../../../', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'svc-pack-'));
const tarballs: Record<string, string> = {};

beforeAll(() => {
  // The builds are fresh (npm test builds first): pack without running prepack's build again.
  for (const w of ['@svc/core', '@svc/server']) {
    const name = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '-w', w, '--pack-destination', out], {
      cwd: root,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop()!;
    tarballs[w] = join(out, name);
  }
}, 120_000);

describe('packages as published', () => {
  it('the tarballs hold what a user can import: no internal entry, no source maps (docs/library.md says why)', () => {
    const list = (w: string) => execFileSync('tar', ['-tzf', tarballs[w]!], { encoding: 'utf8' }).split('\n').filter(Boolean);
    const server = list('@svc/server');
    expect(server.some((f) => /dist\/internal\./.test(f))).toBe(false);
    expect(server).toContain('package/dist/index.js');
    expect(server).toContain('package/dist/signer-worker.js');
    for (const w of ['@svc/core', '@svc/server']) expect(list(w).filter((f) => f.endsWith('.map'))).toEqual([]);
    // No empty chunk (the build once shipped an 86-byte one a shared index left behind), and no
    // chunk imported bare, which every bundler of a side-effect-free package warns it ignores.
    const sizes = execFileSync('tar', ['-tvzf', tarballs['@svc/core']!], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => /dist\/chunk-\w+\.js$/.test(l))
      .map((l) => Number(l.trim().split(/\s+/)[2]));
    expect(sizes.length).toBeGreaterThan(3);
    expect(sizes.filter((n) => n < 200)).toEqual([]);
    for (const f of readdirSync(join(root, 'packages/core/dist')).filter((n) => n.endsWith('.js')))
      expect(readFileSync(join(root, 'packages/core/dist', f), 'utf8'), f).not.toMatch(/^import '\.\/chunk-\w+\.js';$/m);
    expect(readFileSync(join(root, 'docs/library.md'), 'utf8')).toMatch(/without source maps/);
  });

  it('publint reports nothing, suggestions included, for either package', async () => {
    const { publint } = await import('publint');
    for (const dir of ['packages/core', 'packages/server']) {
      const r = await publint({ pkgDir: join(root, dir), level: 'suggestion', strict: true, pack: 'npm' });
      expect(r.messages, dir).toEqual([]);
    }
  }, 120_000);

  it('are-the-types-wrong (esm-only profile) passes each tarball; docs/library.md says the packages are ESM-only', () => {
    const attw = join(root, 'node_modules', '.bin', 'attw');
    for (const t of Object.values(tarballs)) {
      const r = spawnSync(attw, [t, '--profile', 'esm-only', '--format', 'json'], { encoding: 'utf8' });
      expect(r.status, r.stdout.slice(0, 3000)).toBe(0);
    }
    const readme = readFileSync(join(root, 'docs/library.md'), 'utf8');
    expect(readme).toMatch(/ESM-only/);
    expect(readme).toMatch(/"module": "nodenext"/);
  });

  it('the CHANGELOG has an Unreleased section and a dated section for the version both packages carry', () => {
    const log = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
    expect(log).toMatch(/^## \[Unreleased\]$/m);
    for (const dir of ['packages/core', 'packages/server']) {
      const { version } = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      expect(log, dir).toMatch(new RegExp(`^## \\[${version.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
    }
  });

  it('each tarball has its package.json fields and no source, test or cache file', () => {
    for (const [name, t] of Object.entries(tarballs)) {
      const files = execFileSync('tar', ['-tzf', t], { encoding: 'utf8' }).split('\n').filter(Boolean);
      expect(
        files.some((f) => f.startsWith('package/dist/')),
        name,
      ).toBe(true);
      expect(
        files.filter((f) => /\/(src|test)\/|\.cache|\.tgz$/.test(f)),
        name,
      ).toEqual([]);
      const pkg = JSON.parse(execFileSync('tar', ['-xzOf', t, 'package/package.json'], { encoding: 'utf8' }));
      expect(pkg.type, name).toBe('module');
      // The core runs on any Node >= 20.19; the server needs 24 (node:sqlite).
      expect(pkg.engines?.node, name).toBe(name === '@svc/server' ? '>=24' : '>=20.19');
      // Builds where the build tools are; a copy without them (the package alone) packs its dist.
      expect(pkg.scripts?.prepack, name).toMatch(/require\.resolve\('tsup'\).*\|\| npm run build$/);
      expect(pkg.license, name).toBe('Apache-2.0');
    }
  });

  it('npm pack works in a copy of a built package without the build tools (issue 54 part 5)', () => {
    for (const [name, t] of Object.entries(tarballs)) {
      const copy = mkdtempSync(join(tmpdir(), 'svc-copy-'));
      execFileSync('tar', ['-xzf', t, '-C', copy]);
      const out = mkdtempSync(join(tmpdir(), 'svc-repack-'));
      // Scripts run (prepack among them): tsup is not reachable from here, dist/ is.
      const r = spawnSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: join(copy, 'package'), encoding: 'utf8' });
      expect(r.status, `${name}: ${r.stderr}`).toBe(0);
      const again = join(out, r.stdout.trim().split('\n').pop()!);
      const files = execFileSync('tar', ['-tzf', again], { encoding: 'utf8' }).split('\n').filter(Boolean);
      expect(
        files.some((f) => f === 'package/dist/index.js'),
        name,
      ).toBe(true);
      rmSync(copy, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('installed from the tarballs into an empty folder: the README examples run, keys from @svc/core/testing without fast-check', () => {
    const app = mkdtempSync(join(tmpdir(), 'svc-app-'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    const install = spawnSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', tarballs['@svc/core']!, tarballs['@svc/server']!],
      { cwd: app, encoding: 'utf8' },
    );
    expect(install.status, install.stderr.slice(-3000)).toBe(0);
    expect(existsSync(join(app, 'node_modules', 'fast-check'))).toBe(false);
    writeFileSync(
      join(app, 'check.mjs'),
      `import { verifyBundle, SvcError } from '@svc/core';
import { issueProof } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
const K = testKeys('app');
const proof = issueProof({ answer: 'Paris', model: 'm', ts: 1 }, { receipt: K.answer });
const res = await verifyBundle(proof, { trustedKeys: K.trustedKeys });
let code = null;
try { await verifyBundle('{'); } catch (e) { code = e instanceof SvcError ? e.code : 'untyped'; }
console.log(JSON.stringify({ ok: res.verdict.overallOk, recognized: res.signerRecognized, code }));
`,
    );
    const run = spawnSync(process.execPath, ['check.mjs'], { cwd: app, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ ok: true, recognized: true, code: 'invalid_json' });
    // Without fast-check, the arbitraries say what they need at import.
    const arb = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('@svc/core/arbitraries')"], {
      cwd: app,
      encoding: 'utf8',
    });
    expect(arb.status).not.toBe(0);
    expect(arb.stderr).toMatch(/fast-check/);
    const bin = readdirSync(join(app, 'node_modules', '.bin'));
    expect(bin).toContain('svc');
    // The bin is run by the Node running this suite (24); under an older one it says what it needs.
    const svcBin = join(app, 'node_modules', '.bin', 'svc');
    const system = spawnSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (Number(system.split('.')[0]) < 24) {
      const old = spawnSync('node', [svcBin, '--version'], { cwd: app, encoding: 'utf8' });
      expect(old.status).toBe(2);
      expect(old.stderr).toBe(`svc: @svc/server needs Node >= 24 (its SQLite is node:sqlite); this is Node ${system}\n`);
    }
    const version = spawnSync(process.execPath, [svcBin, '--version'], { cwd: app, encoding: 'utf8' });
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8')).version);
    // The CLI works from the install: keys, then a proof signed and verified against them.
    const env = { ...process.env, SVC_DATA_DIR: join(app, 'data') };
    const svc = (args: string[]) => spawnSync(process.execPath, [svcBin, ...args], { cwd: app, encoding: 'utf8', env });
    expect(svc(['keygen']).status).toBe(0);
    const issued = svc(['issue', '--answer', 'from the tarball']);
    expect(issued.status, issued.stderr).toBe(0);
    writeFileSync(join(app, 'proof.json'), issued.stdout);
    // Unpinned it verifies for integrity only: 0 with --allow-unpinned; pinned to another service's keys, 4.
    expect(svc(['verify', 'proof.json', '--allow-unpinned']).status).toBe(0);
    writeFileSync(join(app, 'other-keys.json'), JSON.stringify({ keys: testKeysOf('other') }));
    expect(svc(['verify', 'proof.json', '--keys', 'other-keys.json']).status).toBe(4);
    // What docs/library.md says of TypeScript compiling CommonJS: TS1479 under node16, compiled under nodenext.
    const cjs = join(app, 'cjs');
    mkdirSync(cjs);
    writeFileSync(join(cjs, 'package.json'), JSON.stringify({ type: 'commonjs' }));
    writeFileSync(join(cjs, 'index.ts'), "import { verifyBundle } from '@svc/core';\nexport const f = verifyBundle;\n");
    const tsc = (module: string) =>
      spawnSync(
        process.execPath,
        // TypeScript 7 (the native compiler): the same answer as 5.9 here, at a sixth of its CPU.
        [join(root, 'node_modules/typescript-native/bin/tsc'), '--noEmit', '--module', module, '--skipLibCheck', 'index.ts'],
        { cwd: cjs, encoding: 'utf8' },
      );
    expect(tsc('node16').stdout).toMatch(/TS1479/);
    const next = tsc('nodenext');
    expect(next.status, next.stdout).toBe(0);
    const readme = readFileSync(join(root, 'docs/library.md'), 'utf8');
    expect(readme).toMatch(/`"module": "node16"` refuses the import \(TS1479\)/);
    expect(readme).toMatch(/`"module": "nodenext"` compiles it/);
  }, 300_000);

  it('the verify-only bundle is the size docs/library.md states (minified and gzipped), and carries no TypeBox', async () => {
    const { build } = await import('esbuild');
    const r = await build({
      stdin: {
        contents: "import { verifyBundle } from '@svc/core'; globalThis.v = verifyBundle;",
        resolveDir: join(root, 'packages/server'),
        loader: 'js',
      },
      bundle: true,
      minify: true,
      format: 'esm',
      write: false,
      platform: 'browser',
      metafile: true,
    });
    expect(Object.keys(r.metafile.inputs).filter((k) => k.includes('typebox'))).toEqual([]);
    const min = r.outputFiles[0]!.contents;
    const kb = (n: number) => Math.round(n / 1000);
    const stated = /verify-only bundle is (\d+) KB minified, (\d+) KB gzipped/.exec(readFileSync(join(root, 'docs/library.md'), 'utf8'));
    expect(stated, 'docs/library.md states the verify-only bundle size').not.toBeNull();
    expect(kb(min.length)).toBe(Number(stated![1]));
    expect(kb(gzipSync(min).length)).toBe(Number(stated![2]));
  });
});
