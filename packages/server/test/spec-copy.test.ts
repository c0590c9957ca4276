// The repository carries its own contract (#31): docs/spec/ holds the specification unchanged, and no
// README or document links outside the repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const outside = join(root, '..', 'shared', 'spec');

/** Every Markdown file of the repository's own (not under node_modules or a build). */
function markdown(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', '.git', 'api'].includes(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) markdown(p, out);
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

describe('the contract lives in the repository', () => {
  it('docs/spec holds both documents; where the originals are beside this checkout, unchanged', () => {
    for (const f of ['interface.md', 'wire-format.md']) {
      const copy = readFileSync(join(root, 'docs', 'spec', f), 'utf8');
      expect(copy).toContain('#');
      if (existsSync(join(outside, f)))
        expect(copy === readFileSync(join(outside, f), 'utf8'), `docs/spec/${f} differs from its original`).toBe(true);
    }
  });

  it('no document links or points outside the repository', () => {
    const files = markdown(root);
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) expect(readFileSync(f, 'utf8'), f).not.toMatch(/\.\.\/shared|\]\(\.\.\/\.\.\/\.\.\//);
  });
});
