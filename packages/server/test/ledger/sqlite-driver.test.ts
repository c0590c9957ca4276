// The SQLite driver each runtime loads (#31): the package's own dependencies, nothing to set.
// better-sqlite3 12 aborts on Node 24 when a statement is garbage collected, and 13 crashes at load
// on Node 20; each Node gets the one that is safe on it, here and under Node 24.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode24 } from '@svc/tools/node24';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Makes keys and issues a logged proof into a fresh data folder: opens, writes and closes a ledger. */
function issueAndCollect(node: string): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-driver-'));
  const env = { ...process.env, SVC_DATA_DIR: dir, SVC_SQLITE_MODULE: '' };
  const r1 = spawnSync(node, [CLI, 'keygen'], { env, encoding: 'utf8' });
  if (r1.status !== 0) return { status: r1.status, out: r1.stderr };
  const r = spawnSync(node, [CLI, 'issue', '--answer', 'a', '--model', 'm', '--logged'], { env, encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe('the SQLite driver', () => {
  it('Node 20 (this process) loads better-sqlite3 12.9 and logs a proof', () => {
    const r = issueAndCollect(process.execPath);
    expect(r.status, r.out).toBe(0);
  });

  it('Node 24 loads better-sqlite3 13 from the package itself, no SVC_SQLITE_MODULE, and logs a proof', () => {
    const node24 = ensureNode24({ quiet: true });
    expect(node24).not.toBeNull();
    const r = issueAndCollect(node24!);
    expect(r.status, r.out).toBe(0);
    const which = spawnSync(
      node24!,
      [
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module'; console.log(createRequire(${JSON.stringify(CLI)}).resolve('better-sqlite3-13'))`,
      ],
      { encoding: 'utf8' },
    );
    expect(which.stdout).toMatch(/node_modules\/better-sqlite3-13\//);
  }, 120_000);
});
