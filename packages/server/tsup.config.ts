import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    internal: 'src/internal.ts',
    cli: 'src/cli.ts',
    worker: 'src/worker.ts',
    'signer-worker': 'src/issuing/signer-worker.ts',
    'sqlite-writer': 'src/ledger/sqlite/thread-entry.ts',
    'sqlite-process': 'src/ledger/sqlite/process-entry.ts',
  },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts', internal: 'src/internal.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node24',
  platform: 'node',
  external: ['pg', '@svc/core'],
  // TypeBox 1.x is about 680 ES modules (typebox/value): loaded file by file, they were most of every
  // svc command's start (a process spent ~0.3 s resolving, reading and compiling them). Bundled,
  // the parts the server uses are one chunk. The package stays a dependency for its types.
  noExternal: ['typebox'],
  banner: ({ format }) => (format === 'esm' ? { js: '' } : {}),
});
