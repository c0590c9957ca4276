import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  server: { fs: { allow: ['..'] } },
  test: {
    // Vitest's default on two cores is one file at a time; most server files wait on child
    // processes, sockets and timers, so two at a time took the server suite from about 760 s to
    // about 460 s on the two-core CI machine. Two still left the machine idle a fifth of the main
    // run (its files' wall time less their CPU: about 400 s); three keep both cores busy (99% of
    // the run's core-seconds), and the main run fell from about 620 s to 595 s.
    maxWorkers: Math.max(3, availableParallelism()),
    // Each file's time written to test-timings.json, the slowest printed (tools/lib/timing-reporter.mjs).
    reporters: ['default', './tools/lib/timing-reporter.mjs'],
    projects: [
      {
        extends: true,
        // The core does no I/O and keeps no state between calls, so its files share a worker's
        // modules instead of loading the core and its dependencies again for each: the project's
        // CPU time fell from about 165 s to 91 s (import 171 s to 41 s of file time).
        test: { name: 'core', include: ['packages/core/test/**/*.test.ts'], testTimeout: 120_000, isolate: false },
      },
      {
        extends: true,
        test: { name: 'examples', include: ['examples/**/*.test.ts'], testTimeout: 120_000 },
      },
      {
        extends: true,
        test: {
          name: 'server',
          include: ['packages/server/test/**/*.test.ts'],
          exclude: ['packages/server/test/native/**'],
          globalSetup: ['packages/server/test/support/global-postgres.ts', 'packages/server/test/support/global-keys.ts'],
          setupFiles: ['packages/server/test/support/setup.ts'],
          // A worker's files share its modules, as the core's do: loading the server's sources and
          // their dependencies once a worker instead of once a file took the project's import time
          // from about 120 s to 25 s. A helper therefore registers no hook when imported (support/
          // lifecycle.ts), and a file that mocks a module loads its subject afresh.
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // Run by tools/scripts/test-runtimes.mjs under Node 24: the native crypto backend.
        extends: true,
        test: { name: 'native', include: ['packages/server/test/native/**/*.test.ts'], testTimeout: 120_000 },
      },
    ],
  },
});
