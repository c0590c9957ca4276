// A stranger's first hour (#31): tools/scripts/first-hour.mjs clones the committed repository into
// a folder with nothing beside it, installs, starts the server as the README says and runs every
// runnable block of the README and the guides against it, each line exiting as its comment promises.
import { execSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = `${root}tools/scripts/first-hour.mjs`;

describe('first hour', () => {
  it('the runnable blocks of the README and the guides are read with the exit codes their comments promise', async () => {
    const { runnableLines, RUNNABLE_FILES, promisedExit, inBackground, viaBin } = await import(script);
    // After the first `npx svc` line, the binary it resolves runs the rest (npx is tried once).
    expect(viaBin('PORT=1 npx svc serve & npx svc verify p.json   # exit 0', '/c/node_modules/.bin/svc')).toBe(
      'PORT=1 /c/node_modules/.bin/svc serve & /c/node_modules/.bin/svc verify p.json   # exit 0',
    );
    expect(RUNNABLE_FILES).toEqual(['README.md', 'docs/cli.md', 'docs/formats.md', 'docs/issuing.md']);
    const of = (f: string): string[] => runnableLines(readFileSync(`${root}${f}`, 'utf8'));
    for (const f of RUNNABLE_FILES) expect(of(f).length, f).toBeGreaterThan(0);
    const lines: string[] = (RUNNABLE_FILES as string[]).flatMap(of);
    expect(
      lines.every(
        (l) => l.includes('svc') || l.startsWith('printf') || l.startsWith('curl ') || /(node|npm run -s node24 --) examples\//.test(l),
      ),
    ).toBe(true);
    expect(promisedExit('npx svc verify p.json   # exit 0: verifies')).toBe(0);
    expect(promisedExit('npx svc ledger audit --state a.json   # exit 3 on rollback/fork')).toBe(0);
    expect(promisedExit('npx svc verify other.json   # exit 4: a signer the keys do not name')).toBe(4);
    // A server started in the background is started, seen to listen and stopped: never left behind.
    expect(of('docs/cli.md').filter(inBackground)).toHaveLength(1);
    expect(of('docs/issuing.md').filter(inBackground)).toHaveLength(2);
    expect(inBackground('PORT=8090 npx svc witness serve --data-dir w &   # a witness')).toBe(true);
    expect(inBackground('npx svc verify p.json   # exit 0: a & b')).toBe(false);
    // An unmarked block is not run; a marked one is, whatever its neighbours.
    expect(runnableLines('```sh\nrm -rf x\n```\n<!-- runnable -->\n```sh\nnpx svc a\n\nnpx svc b\n```\n')).toEqual([
      'npx svc a',
      'npx svc b',
    ]);
  });

  it('the issuing guide is run too: the library, the private API, the OpenAI front and --jsonl, each a command', async () => {
    const { runnableLines, portsNamed, installNoise } = await import(script);
    // An install prints nothing a user must read, but the one documented engine warning: on an
    // older Node, that @svc/server itself needs 24.
    const engine = (p: string) =>
      `npm warn EBADENGINE Unsupported engine {\nnpm warn EBADENGINE   package: '${p}',\nnpm warn EBADENGINE   required: { node: '>=24' },\nnpm warn EBADENGINE }`;
    expect(installNoise(`added 371 packages\n${engine('@svc/server@0.1.0')}\n${engine('@svc/server@0.1.0')}`)).toEqual([]);
    expect(installNoise(engine('better-sqlite3@13.2.0'))).toHaveLength(4);
    expect(installNoise(`${engine('@svc/server@0.1.0')}\n${engine('other@1.0.0')}`)).toHaveLength(8);
    expect(installNoise('npm warn install-scripts 4 packages have install scripts')).toHaveLength(1);
    expect(installNoise('Generated an empty chunk: "chunk-X".')).toHaveLength(1);
    // A background server is waited for on every port its line names, the issuing listener too.
    expect(portsNamed('SVC_ISSUE_LISTEN=127.0.0.1:41001 PORT=41002 npx svc serve &')).toEqual([41001, 41002]);
    expect(portsNamed('node examples/echo-model.mjs 41003 &')).toEqual([41003]);
    const lines: string[] = runnableLines(readFileSync(`${root}docs/issuing.md`, 'utf8'));
    for (const needed of [
      '/api/v1/issue ',
      '/api/v1/issue/batch',
      '"stream":true',
      '/v1/chat/completions',
      '/v1/responses',
      'issue --jsonl',
      'examples/issue-library.mjs',
      'svc token add',
    ])
      expect(
        lines.some((l) => l.includes(needed)),
        needed,
      ).toBe(true);
  });

  it('npm install prints no warning under Node 24; under an older Node only that @svc/server needs 24', async () => {
    const { installNoise } = await import(script);
    const { ensureNode24 } = await import(`${root}tools/lib/node24.mjs`);
    // The npm on PATH, run by each Node in turn (a dry run: it resolves the tree and checks every
    // package's engines, and changes nothing).
    const npmCli = realpathSync(execSync('command -v npm', { encoding: 'utf8' }).trim());
    const install = (node: string) =>
      spawnSync(node, [npmCli, 'install', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: root, encoding: 'utf8' });
    const on24 = install(ensureNode24({ quiet: true })!);
    expect(on24.status, on24.stderr).toBe(0);
    expect(`${on24.stdout}${on24.stderr}`).not.toMatch(/warn/i);
    const system = spawnSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (Number(system.split('.')[0]) < 24) {
      const old = install('node');
      expect(old.status, old.stderr).toBe(0);
      expect(old.stderr).toContain("package: '@svc/server@");
      expect(installNoise(`${old.stdout}${old.stderr}`)).toEqual([]);
    }
  }, 120_000);

  it("the checkout's build stands for the clone's only with the record of what it printed, for that very build", async () => {
    const { BUILDS, buildOutputOf } = await import(`${root}tools/lib/build-if-stale.mjs`);
    const dir = mkdtempSync(join(tmpdir(), 'svc-build-record-'));
    try {
      const outputs = (BUILDS as Array<{ output: string }>).map((b) => join(dir, b.output));
      for (const o of outputs) {
        mkdirSync(dirname(o), { recursive: true });
        writeFileSync(o, '');
      }
      expect(buildOutputOf(dir)).toBeNull(); // no record: a build made by hand
      const times = outputs.map((o) => statSync(o).mtimeMs);
      mkdirSync(join(dir, 'node_modules/.cache/svc-build'), { recursive: true });
      writeFileSync(join(dir, 'node_modules/.cache/svc-build/stderr.json'), JSON.stringify({ outputs: times, stderr: 'warned' }));
      expect(buildOutputOf(dir)).toBe('warned');
      utimesSync(outputs[0]!, new Date(), new Date(times[0]! + 5000)); // built again since
      expect(buildOutputOf(dir)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a fresh clone with nothing beside it: install leaves it clean, every README command exits as promised', async () => {
    // The checkout's build stands for the clone's when its inputs are the commit's (the script says why).
    const child = spawn(process.execPath, [script, '--reuse-build'], { cwd: root });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code, out.slice(-6000)).toBe(0);
    expect(out).toContain('every README command exits as the README says');
    expect(out).toMatch(/^build: /m);
    expect(out.match(/^ok /gm)?.length ?? 0).toBeGreaterThanOrEqual(32);
  }, 900_000);
});
