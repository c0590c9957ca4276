// The storage process (what `svc serve` runs beside each server process to hold the SQLite files)
// loads the tree and its tiles through @svc/core/merkle, never the core's main entry: the
// post-quantum, curve and cipher modules behind it cost it 16 MiB at start (82 -> 66 MiB), and it
// never signs or verifies. Read from the built files' import graph, as Node will load it.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const serverDist = fileURLToPath(new URL('../../dist/', import.meta.url));
const require = createRequire(join(serverDist, 'index.js'));

/** Every bare specifier the module graph from `entry` reaches, following relative imports and @svc/core's files. */
function bareImports(entry: string): Set<string> {
  const bare = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else if (!spec.startsWith('node:')) {
        bare.add(spec);
        if (spec.startsWith('@svc/core')) visit(require.resolve(spec));
      }
    }
  };
  visit(entry);
  return bare;
}

describe('the storage process', () => {
  it('loads @svc/core/merkle and SQLite, and no signature code', () => {
    const entry = join(serverDist, 'sqlite-process.js');
    expect(existsSync(entry), 'npm run build first').toBe(true);
    const bare = [...bareImports(entry)];
    expect(bare).toContain('@svc/core/merkle');
    expect(bare.filter((s) => s === '@svc/core' || /^@noble\/(post-quantum|curves|ciphers)/.test(s))).toEqual([]);
  });

  it('the check can fail: the server process itself reaches the signature code', () => {
    const bare = [...bareImports(join(serverDist, 'index.js'))];
    expect(bare.some((s) => s.startsWith('@noble/post-quantum'))).toBe(true);
  });
});
