// The test suite's own house rules: tests import the sources (a stale build cannot hide a change),
// and one smoke test runs the built package as a user installs it.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('the test suite', () => {
  it('imports the sources, never the build (spawning the built CLI or reading built files is fine)', () => {
    const files = readdirSync(here, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|mts)$/.test(f));
    expect(files.length).toBeGreaterThan(30);
    const offenders = files.filter((f) => /(from\s+|import\()\s*['"](\.\.\/)+dist\//.test(readFileSync(join(here, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('tooling lives in the private tools workspace: no tool reaches into another by path, no package into tools', () => {
    const repo = join(here, '..', '..', '..');
    const read = (dir: string) =>
      readdirSync(join(repo, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(m?js|m?ts)$/.test(f) && !f.includes('node_modules') && !f.startsWith('dist'))
        .map((f) => ({ f: `${dir}/${f}`, text: readFileSync(join(repo, dir, f), 'utf8') }));
    const importsOf = (text: string) => [...text.matchAll(/(?:from\s+|import\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
    // bench and scripts share only tools/lib; packages reach tools by its package name, never by path.
    const offenders: string[] = [];
    for (const { f, text } of read('tools/bench'))
      for (const i of importsOf(text)) if (/\.\.\/scripts\//.test(i)) offenders.push(`${f} -> ${i}`);
    for (const { f, text } of read('tools/scripts'))
      for (const i of importsOf(text)) if (/\.\.\/bench\//.test(i)) offenders.push(`${f} -> ${i}`);
    for (const dir of ['packages/core', 'packages/server', 'examples'])
      for (const { f, text } of read(dir))
        for (const i of importsOf(text)) if (/(\.\.\/)+(tools|scripts|bench)\//.test(i)) offenders.push(`${f} -> ${i}`);
    expect(offenders).toEqual([]);
    // The server's own build glue is the server's.
    const pkg = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8'));
    expect(pkg.scripts.build).not.toMatch(/\.\.\//);
  });

  // #32 item 5: a test sits in the folder of the source it tests; suites about the whole package
  // (its vectors, its fuzzers, its peers, its documents) are named here with why, so a new one is a choice.
  const CROSS_CUTTING: Record<string, Record<string, string>> = {
    core: {
      'fuzz.test.ts': 'the structure-aware fuzzer over every kind',
      'properties.test.ts': 'invariants over arbitrary bundles of every kind',
      'vectors.test.ts': 'test-vectors/*.json, every kind',
      'kept.test.ts': 'test-vectors/kept: what earlier builds made, every kind',
    },
    server: {
      'fuzz/': 'fuzzers over every input path',
      'interop/': 'code we did not write reading what we emit',
      'native/': 'the same behaviour on Node 24 node:crypto',
      'deploy.test.ts': 'the container and its files',
      'docs.test.ts': 'the README and the guides: excerpts, links, the front page',
      'endpoints.test.ts': 'every endpoint over a socket',
      'commits.test.ts': 'the log: every commit subject in the house form',
      'examples.test.ts': 'examples/ run as a user runs them',
      'first-hour.test.ts': "a fresh clone and the README's commands",
      'handlers.test.ts': 'every handler in process, without a socket',
      'house.test.ts': "the test suite's own rules",
      'layers.test.ts': 'import direction across both packages',
      'logs.test.ts': 'log lines of every component',
      'openapi-client.test.ts': 'a client generated from the OpenAPI document',
      'ops.test.ts': 'health, readiness and metrics together',
      'process.test.ts': 'the process: signals, exits, crashes',
      'publish.test.ts': 'the packed packages as users install them',
      'rules.test.ts': 'docs/rules.md against the code and tests it names',
      'spec-copy.test.ts': "the specification's copy in docs/spec",
      'start.test.ts': 'npm start on embedded defaults',
      'system-setup.test.ts': "npm test's first step: the system components it installs, or names",
    },
  };
  const HELPERS = new Set(['fixtures/', 'support/', 'generated/']);

  for (const pkg of ['core', 'server'])
    it(`@svc/${pkg}: tests mirror the source folders (a test folder is a source folder; a top-level test names a top-level module or a declared suite)`, () => {
      const root = join(here, '..', '..', pkg);
      const tests = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts'));
      const srcEntries = new Set(
        readdirSync(join(root, 'src'), { withFileTypes: true }).map((d) => (d.isDirectory() ? `${d.name}/` : d.name)),
      );
      // The server's page is a source folder of its own, beside src/.
      if (pkg === 'server') srcEntries.add('page/');
      const declared = CROSS_CUTTING[pkg]!;
      const misplaced = tests.filter((f) => {
        const top = f.includes('/') ? `${f.split('/')[0]}/` : f;
        if (declared[top] !== undefined || HELPERS.has(top)) return false;
        if (top.endsWith('/')) return !srcEntries.has(top);
        return !srcEntries.has(top.replace(/\.test\.ts$/, '.ts'));
      });
      expect(tests.length).toBeGreaterThan(20);
      expect(misplaced).toEqual([]);
      // Every declared suite exists: the list cannot go stale.
      for (const name of Object.keys(declared))
        expect(
          tests.some((f) => f === name || f.startsWith(name)),
          name,
        ).toBe(true);
    });

  it('smoke: the built package, imported by its name, starts a server that answers', async () => {
    const pkg = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8'));
    const built = await import('@svc/server');
    expect(built.VERSION).toBe(pkg.version);
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'svc-smoke-'));
    const cfg = built.loadConfig({ SVC_DATA_DIR: dir, PORT: '0', SVC_LOG: '0', SVC_WORKERS: '1', SVC_PROCESSES: '1' });
    const s = await built.startServer(cfg);
    try {
      const r = await fetch(`${s.url}/readyz`);
      expect(r.status).toBe(200);
      expect(((await r.json()) as { ready: boolean }).ready).toBe(true);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the one table of kinds (#54 part 1)', () => {
  it("a kind's wire suffix is written in core/src/kinds.ts alone, and what lists kinds reads that table", () => {
    const dirs = ['packages/core/src', 'packages/server/src', 'packages/server/page'];
    const offenders: string[] = [];
    for (const d of dirs)
      for (const f of readdirSync(join(ROOT, d), { recursive: true, encoding: 'utf8' })) {
        if (!/\.ts$/.test(f) || f === 'kinds.ts') continue;
        const code = readFileSync(join(ROOT, d, f), 'utf8')
          .split('\n')
          .filter((l) => !/^\s*(\/\/|\*|\/\*\*)/.test(l))
          .join('\n');
        for (const suffix of ['autopilot-run', 'ai-provenance-record']) if (code.includes(suffix)) offenders.push(`${d}/${f}: ${suffix}`);
      }
    expect(offenders).toEqual([]);
    // Names, detection, the response union, the verify route's schemas and the page's views.
    for (const f of [
      'packages/core/src/names.ts',
      'packages/core/src/detect.ts',
      'packages/core/src/dispatch.ts',
      'packages/server/src/api/verify/routes.ts',
      'packages/server/page/views/index.ts',
    ])
      expect(readFileSync(join(ROOT, f), 'utf8'), f).toMatch(/\bKINDS\b|\bKindEntry\b/);
  });
});

describe('the public surface (#54 part 3)', () => {
  it("each package's api-report.md lists exactly what its built entries export: growth is a reviewed diff", async () => {
    const { spawn } = await import('node:child_process');
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn(process.execPath, [join(ROOT, 'tools/scripts/api-report.mjs'), '--check'], { cwd: ROOT });
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.stderr.on('data', (d) => (out += d));
      c.on('close', (code) => resolve({ code, out }));
    });
    expect(r.out, 'run npm run api-report and review the diff of packages/*/api-report.md').toBe('');
    expect(r.code).toBe(0);
    for (const pkg of ['core', 'server'])
      expect(readFileSync(join(ROOT, 'packages', pkg, 'api-report.md'), 'utf8')).toMatch(
        /^- \w+ \((function|const|class|interface|type)\)$/m,
      );
  }, 60_000);

  it('every type a public signature names is exported by some entry (#54 part 4), and the check finds one that is not', async () => {
    for (const pkg of ['core', 'server'])
      expect(readFileSync(join(ROOT, 'packages', pkg, 'api-report.md'), 'utf8'), pkg).toMatch(
        /^## Named in a public signature, not exported \(0\)$/m,
      );
    // It can fail: a declaration file whose export returns an interface it keeps to itself.
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'hidden-types-'));
    try {
      writeFileSync(
        join(dir, 'index.d.ts'),
        'interface Hidden { x: number }\ninterface Shown { y: Hidden }\nexport declare function make<T>(t: T): Shown;\nexport type { Shown };\n',
      );
      const { hiddenTypes } = await import(join(ROOT, 'tools/scripts/api-report.mjs'));
      expect(hiddenTypes([join(dir, 'index.d.ts')], dir)).toEqual(['Hidden (in Shown)']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('wire types from the schemas alone (#54 part 2)', () => {
  /** `interface NAME` declarations, in `texts`, of a name the schemas entry exports: a hand-written twin. */
  const twins = (schemaNames: string[], texts: Record<string, string>) =>
    Object.entries(texts).flatMap(([file, text]) =>
      schemaNames.filter((n) => new RegExp(`^(export )?interface ${n}\\b`, 'm').test(text)).map((n) => `${file}: ${n}`),
    );
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );

  it('no source declares an interface of the name of a schema: the type is Static<typeof S.X>, or built on it', () => {
    const report = readFileSync(join(ROOT, 'packages/core/api-report.md'), 'utf8');
    const section = report.slice(
      report.indexOf('## @svc/core/schemas'),
      report.indexOf('\n## ', report.indexOf('## @svc/core/schemas') + 1),
    );
    const names = [...section.matchAll(/^- (\w+) \(const\)$/gm)].map((m) => m[1]!);
    expect(names).toEqual(expect.arrayContaining(['ProofBundle', 'AiProvenanceRecord', 'ReceiptKey']));
    const texts: Record<string, string> = {};
    for (const pkg of ['core', 'server'])
      for (const f of walk(join(ROOT, 'packages', pkg, 'src'))) texts[f.slice(ROOT.length)] = readFileSync(f, 'utf8');
    expect(twins(names, texts)).toEqual([]);
    // It can fail: the interface AiProvenanceRecord once had beside its schema.
    expect(twins(names, { 'build.ts': 'export interface AiProvenanceRecord {\n  schema: string;\n}' })).toEqual([
      'build.ts: AiProvenanceRecord',
    ]);
  });
});

describe('the API reference examples (#54 part 6)', () => {
  it("type-check against the built declarations: a reader's own names pass, a wrong option or member fails", async () => {
    const { checkExamples } = await import(join(ROOT, 'tools/lib/example-check.mjs'));
    const failed: string[] = checkExamples([
      {
        where: '@svc/core/index/good',
        code: "const res = await verifyBundle(text, { trustedKeys });\nif (res.kind === 'svc-proof') res.verdict.receipt.sigOk;",
      },
      { where: '@svc/core/index/option', code: 'await verifyBundle(text, { trustKeys: [] });' },
      { where: '@svc/core/index/member', code: 'const res = await verifyBundle(text);\nres.verdict.receipt;' },
      { where: '@svc/core/tlog/entry', code: 'const c = parseCheckpoint(text);\nreturn c.size + 1;' },
    ]);
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatch(/^@svc\/core\/index\/option: example line 1: .*trustKeys/);
    expect(failed[1]).toMatch(/^@svc\/core\/index\/member: example line 2: Property 'receipt' does not exist/);
  }, 60_000);
});

describe('the timing report (#42)', () => {
  it("every run writes each file's time, slowest first, and the main run's file is never overwritten by a one-project run", async () => {
    const { default: TimingReporter } = await import(join(ROOT, 'tools/lib/timing-reporter.mjs'));
    const file = join(ROOT, 'test-timings.house-probe.json');
    const mod = (id: string, ms: number) => ({
      moduleId: join(ROOT, id),
      project: { name: 'house-probe' },
      state: () => 'passed',
      diagnostic: () => ({ environmentSetupDuration: 0, prepareDuration: 0, setupDuration: 0, collectDuration: ms / 2, duration: ms / 2 }),
    });
    const r = new TimingReporter();
    const write = process.stdout.write;
    let printed = '';
    process.stdout.write = ((c: string) => ((printed += c), true)) as typeof process.stdout.write;
    try {
      r.onTestRunStart();
      r.onTestRunEnd([mod('a.test.ts', 1000), mod('b.test.ts', 5000)]);
    } finally {
      process.stdout.write = write;
    }
    try {
      const report = JSON.parse(readFileSync(file, 'utf8'));
      expect(report.files.map((f: { file: string; seconds: number }) => [f.file, f.seconds])).toEqual([
        ['b.test.ts', 5],
        ['a.test.ts', 1],
      ]);
      expect(report.fileSeconds).toBe(6);
      expect(printed).toMatch(/5 s {2}b\.test\.ts[\s\S]*1 s {2}a\.test\.ts/);
    } finally {
      rmSync(file, { force: true });
    }
    expect(existsSync(file)).toBe(false);
  });
});

describe('the suite outside Node 20 (#42)', () => {
  it('runs the files that can differ by runtime, every core source naming a runtime global among them, both runners reading the one list', async () => {
    const { RUNTIME_SUITE, RUNTIME_GLOBALS } = await import(join(ROOT, 'tools/lib/runtime-suite.mjs'));
    for (const f of RUNTIME_SUITE as string[]) expect(existsSync(join(ROOT, f)), f).toBe(true);
    // Every core source (the testing entry aside) that names a runtime global is mapped to a file the
    // other runtimes run, and only those: a new one fails here until the list says how it is held.
    const globals =
      /\b(globalThis|TextEncoder|TextDecoder|atob|btoa|Intl|structuredClone|navigator|performance)\b|crypto\.subtle|Date\.(parse|now)|new Date\(/;
    const sources = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(`${dir}/${e.name}`) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [`${dir}/${e.name}`] : [],
      );
    const naming = sources('packages/core/src')
      .filter((f) => !f.startsWith('packages/core/src/testing/'))
      .filter((f) => globals.test(readFileSync(join(ROOT, f), 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')));
    expect(naming.sort()).toEqual(Object.keys(RUNTIME_GLOBALS).sort());
    for (const f of Object.values(RUNTIME_GLOBALS) as string[]) expect(RUNTIME_SUITE).toContain(f);
    expect(readFileSync(join(ROOT, 'vitest.browser.config.ts'), 'utf8')).toMatch(/include: RUNTIME_SUITE/);
    expect(readFileSync(join(ROOT, 'tools/scripts/test-runtimes.mjs'), 'utf8')).toMatch(/'core', \.\.\.RUNTIME_SUITE\]/);
    // The Node 20 run takes every core test file: nothing is left out of it.
    expect(readFileSync(join(ROOT, 'vitest.config.ts'), 'utf8')).toMatch(
      /name: 'core', include: \['packages\/core\/test\/\*\*\/\*\.test\.ts'\]/,
    );
  });
});

describe('npm test (tools/scripts/test.mjs)', () => {
  it('steps run two at a time report the first failure, whichever lane ends last', async () => {
    const { together } = await import(join(ROOT, 'tools/scripts/test.mjs'));
    const step = (code: number, ms: number) => ({
      name: `exit ${code} after ${ms} ms`,
      cmd: process.execPath,
      args: ['-e', `setTimeout(() => process.exit(${code}), ${ms})`],
    });
    // The failing step ends first; the step beside it ends later with 0 and must not hide it.
    expect(await together([step(3, 10), step(0, 400), step(0, 10)], 2)).toBe(3);
    expect(await together([step(0, 10), step(0, 10)], 2)).toBe(0);
  });
});
