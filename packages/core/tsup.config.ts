import { defineConfig } from 'tsup';

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
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  platform: 'neutral',
  treeshake: true,
  external: ['fast-check'],
});
