// A stranger's first hour (#31): tools/scripts/first-hour.mjs clones the committed repository into
// a folder with nothing beside it, installs, starts the server as the README says and runs every
// command of the README's CLI block against it, each exiting as the README promises.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = `${root}tools/scripts/first-hour.mjs`;

describe('first hour', () => {
  it('the README CLI block is read with the exit codes its comments promise', async () => {
    const { readmeCliBlock, promisedExit, inBackground } = await import(script);
    const lines: string[] = readmeCliBlock(readFileSync(`${root}README.md`, 'utf8'));
    expect(lines.length).toBeGreaterThanOrEqual(8);
    expect(lines.every((l) => l.includes('svc') || l.startsWith('printf') || l.startsWith('curl ') || l.includes('node examples/'))).toBe(
      true,
    );
    expect(promisedExit('npx svc verify p.json   # exit 0: verifies')).toBe(0);
    expect(promisedExit('npx svc ledger audit --state a.json   # exit 3 on rollback/fork')).toBe(0);
    expect(promisedExit('npx svc verify other.json   # exit 4: a signer the keys do not name')).toBe(4);
    // A server started in the background is started, seen to listen and stopped: never left behind.
    expect(lines.filter(inBackground)).toHaveLength(1);
    expect(inBackground('PORT=8090 npx svc witness serve --data-dir w &   # a witness')).toBe(true);
    expect(inBackground('npx svc verify p.json   # exit 0: a & b')).toBe(false);
  });

  it("the README's issuing block is read too: the library, the private API, the OpenAI front and --jsonl, each a command run", async () => {
    const { readmeCliBlock, README_BLOCKS, inBackground, portsNamed } = await import(script);
    // A background server is waited for on every port its line names, the issuing listener too.
    expect(portsNamed('SVC_ISSUE_LISTEN=127.0.0.1:41001 PORT=41002 npx svc serve &')).toEqual([41001, 41002]);
    expect(portsNamed('node examples/echo-model.mjs 41003 &')).toEqual([41003]);
    expect(README_BLOCKS).toEqual(['## CLI', '## Issuing signed answers']);
    const lines: string[] = readmeCliBlock(readFileSync(`${root}README.md`, 'utf8'), '## Issuing signed answers');
    expect(lines.filter(inBackground)).toHaveLength(2);
    for (const needed of [
      '/api/v1/issue ',
      '/api/v1/issue/batch',
      '"stream":true',
      '/v1/chat/completions',
      'issue --jsonl',
      'examples/issue-library.mjs',
      'svc token add',
    ])
      expect(
        lines.some((l) => l.includes(needed)),
        needed,
      ).toBe(true);
    expect(lines.every((l) => l.includes('svc') || l.startsWith('printf') || l.startsWith('curl ') || l.includes('node examples/'))).toBe(
      true,
    );
  });

  it('a fresh clone with nothing beside it: install leaves it clean, every README command exits as promised', async () => {
    const child = spawn(process.execPath, [script], { cwd: root });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code, out.slice(-6000)).toBe(0);
    expect(out).toContain('every README command exits as the README says');
    expect(out.match(/^ok /gm)?.length ?? 0).toBeGreaterThanOrEqual(27);
  }, 900_000);
});
