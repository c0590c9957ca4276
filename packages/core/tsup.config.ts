import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

/**
 * esbuild's code splitting imports a chunk bare (`import './chunk-X.js'`) to keep the order in
 * which modules run, even where another chunk the entry loads imports it by name. The package
 * declares no side effects, so a bundler ignores such an import, and says so in a warning to every
 * user who bundles it. The lines are blanked (line numbers kept) so nothing is left to ignore.
 */
function dropBareChunkImports(): void {
  for (const f of readdirSync('dist').filter((n) => n.endsWith('.js'))) {
    const text = readFileSync(`dist/${f}`, 'utf8');
    const out = text.replace(/^import '\.\/chunk-[A-Z0-9]+\.js';$/gm, '');
    if (out !== text) writeFileSync(`dist/${f}`, out);
  }
}

export default defineConfig({
  // TypeBox lives only behind the schemas entry, so verify-only bundles do not carry it.
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
    arbitraries: 'src/testing/arbitraries-entry.ts',
    schemas: 'src/schemas/index.ts',
    tlog: 'src/tlog/index.ts',
    merkle: 'src/merkle-entry.ts',
    envelope: 'src/envelope/index.ts',
    scitt: 'src/scitt/index.ts',
    issue: 'src/issue-entry.ts',
    record: 'src/record-entry.ts',
    primitives: 'src/primitives-entry.ts',
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  platform: 'neutral',
  treeshake: true,
  external: ['fast-check'],
  onSuccess: async () => dropBareChunkImports(),
});
