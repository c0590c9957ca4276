// The first step of `npm test` (#42): on a machine where it may (root with apt-get), it installs the
// Debian packages the suite needs, once; under CI=true, elsewhere or with SVC_NO_INSTALL, it stops at
// once naming the exact command; outside CI it says what it skips and how to get it (#54 part 7). apt-get is stood in for by a script that records its arguments and "installs"
// Chromium by creating the file CHROMIUM_PATH names, so the test changes nothing on the machine.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const script = join(root, 'tools/scripts/check-system.mjs');
const dir = mkdtempSync(join(tmpdir(), 'svc-setup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeAptGet(): { bin: string; log: string; chromium: string } {
  const bin = join(dir, 'bin');
  const log = join(dir, 'apt.log');
  const chromium = join(dir, 'chromium');
  spawnSync('mkdir', ['-p', bin]);
  writeFileSync(
    join(bin, 'apt-get'),
    `#!/bin/sh\necho "$@" >> ${log}\ncase "$*" in *install*chromium*) touch ${chromium};; esac\nexit 0\n`,
  );
  chmodSync(join(bin, 'apt-get'), 0o755);
  return { bin, log, chromium };
}

const run = (env: Record<string, string>) =>
  spawnSync(process.execPath, [script], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });

describe('npm test installs what it needs, or names the command', () => {
  it('with everything present: exit 0 and nothing installed', () => {
    const r = run({ SVC_NO_INSTALL: '1' });
    expect(r.status).toBe(0);
  });

  it('under CI=true, with SVC_NO_INSTALL and Chromium missing: exit 1 at once, naming the exact apt-get line', () => {
    const r = run({ CI: 'true', SVC_NO_INSTALL: '1', CHROMIUM_PATH: join(dir, 'nowhere') });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('apt-get update && apt-get install -y chromium');
  });

  it('outside CI, with Chromium missing: exit 0, and one line naming what is skipped and how to get it', () => {
    const r = run({ CI: '', SVC_NO_INSTALL: '1', CHROMIUM_PATH: join(dir, 'nowhere') });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^npm test: skipping the browser runs .*: no Chromium at .*nowhere; to run them: /);
  });

  it('as root with apt-get: installs the missing package itself (update, then install), then passes', () => {
    const { bin, log, chromium } = fakeAptGet();
    const r = run({ CI: 'true', CHROMIUM_PATH: chromium, PATH: `${bin}:${process.env.PATH}` });
    if (process.getuid?.() !== 0) {
      // Not root: told, never installed for.
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('apt-get install -y chromium');
      expect(existsSync(log)).toBe(false);
      return;
    }
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['update -qq', 'install -y -qq chromium']);
    expect(existsSync(chromium)).toBe(true);
  });
});
