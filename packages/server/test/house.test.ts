// The test suite's own house rules: tests import the sources (a stale build cannot hide a change),
// and one smoke test runs the built package as a user installs it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));

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
