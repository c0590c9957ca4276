// The container recipe and the systemd unit, where no container runtime runs them: their files are
// checked line by line (non-root, volume, health check, hardening, every COPY source exists), and
// the entry point they both run is run here with the container's environment and probed the way
// its health check probes it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from './support/harness.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const containerfile = readFileSync(join(root, 'docs/deploy/Containerfile'), 'utf8');
const unit = readFileSync(join(root, 'docs/deploy/svc.service'), 'utf8');
// Instructions, continuation lines joined, comments dropped.
const instructions = containerfile
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .filter((l) => l.trim() && !l.trim().startsWith('#'))
  .map((l) => l.trim());
const final = instructions.slice(instructions.findLastIndex((l) => l.startsWith('FROM ')));
const cmd = JSON.parse(final.find((l) => l.startsWith('CMD '))!.slice(4)) as string[];

describe('Containerfile', () => {
  it('builds in two stages and runs as a non-root user with its data in a volume and a health check', () => {
    expect(instructions.filter((l) => l.startsWith('FROM ')).length).toBe(2);
    expect(final.find((l) => l.startsWith('USER '))).toMatch(/^USER (?!root\b|0\b)\S+$/);
    expect(final).toContain('VOLUME ["/data"]');
    expect(final.find((l) => l.startsWith('ENV '))).toMatch(/SVC_DATA_DIR=\/data/);
    expect(final.find((l) => l.startsWith('HEALTHCHECK '))).toMatch(/\/readyz/);
    expect(final).toContain('STOPSIGNAL SIGTERM');
    expect(cmd).toEqual(['node', 'packages/server/dist/cli.js', 'serve']);
    // Its run line restarts it on any exit but a requested stop (the server exits 0 only then).
    expect(containerfile).toMatch(/docker run --restart=on-failure /);
    // Nothing at build time fetches from elsewhere but the package registry and Debian.
    expect(containerfile).not.toMatch(/curl|wget/);
  });

  it('copies only what the repository has', () => {
    for (const l of instructions.filter((x) => x.startsWith('COPY ') && !x.includes('--from'))) {
      const parts = l.split(/\s+/).slice(1);
      for (const src of parts.slice(0, -1)) expect(existsSync(join(root, src)), src).toBe(true);
    }
  });
});

describe('systemd unit', () => {
  it('runs the same entry point as its own user, with the system read-only to it', () => {
    const get = (k: string) => [...unit.matchAll(new RegExp(`^${k}=(.*)$`, 'gm'))].map((m) => m[1]!);
    expect(get('ExecStart')[0]).toBe(`/usr/bin/${cmd.join(' ')}`);
    expect(get('DynamicUser')).toEqual(['yes']);
    expect(get('ProtectSystem')).toEqual(['strict']);
    expect(get('NoNewPrivileges')).toEqual(['yes']);
    expect(get('StateDirectory')).toEqual(['svc']);
    expect(get('Environment')).toContain('SVC_DATA_DIR=/var/lib/svc');
    expect(get('KillSignal')).toEqual(['SIGTERM']);
    // The server exits 0 only when told to stop; any other exit is restarted, a clean one included.
    expect(get('Restart')).toEqual(['always']);
  });
});

describe('the entry point both run', () => {
  it("starts with the container's environment, answers its health check, and stops on SIGTERM with exit 0", async () => {
    const data = mkdtempSync(join(tmpdir(), 'svc-deploy-'));
    const port = await freePort();
    const env = Object.fromEntries(
      (
        final
          .find((l) => l.startsWith('ENV '))!
          .slice(4)
          .match(/\S+=\S+/g) ?? []
      ).map((kv) => kv.split('=') as [string, string]),
    );
    const child = spawn(cmd[0] === 'node' ? process.execPath : cmd[0]!, cmd.slice(1), {
      cwd: root,
      env: {
        ...process.env,
        ...env,
        // Here rather than in the image: a free loopback port, a temporary data folder.
        SVC_DATA_DIR: data,
        HOST: '127.0.0.1',
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout!.on('data', (d) => (logs += d));
    child.stderr!.on('data', (d) => (logs += d));
    try {
      const health = JSON.parse(final.find((l) => l.startsWith('HEALTHCHECK '))!.replace(/^.*CMD /, '')) as string[];
      let ok = false;
      for (let i = 0; i < 100 && !ok; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const probe = spawn(process.execPath, health.slice(1), { env: { ...process.env, PORT: String(port) } });
        ok = (await new Promise<number | null>((r) => probe.on('exit', r))) === 0;
      }
      expect(ok, logs).toBe(true);
    } finally {
      child.kill('SIGTERM');
      const code = await new Promise<number | null>((r) => child.on('exit', r));
      expect(code).toBe(0);
      expect(logs).toContain('"event":"stopped"');
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);
});
