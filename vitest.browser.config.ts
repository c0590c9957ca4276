// The core's test suite again, inside headless Debian chromium driven by playwright: the core must
// behave the same in a browser as in Node. No browser is downloaded; the system one is used.
import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@svc/tools/chromium';
import { RUNTIME_SUITE } from '@svc/tools/runtime-suite';

export default defineConfig({
  server: { fs: { allow: ['..'] } },
  optimizeDeps: {
    include: [
      'fast-check',
      '@noble/post-quantum/ml-dsa.js',
      '@noble/post-quantum/slh-dsa.js',
      '@noble/post-quantum/falcon.js',
      '@noble/hashes/sha2.js',
      '@noble/curves/ed25519.js',
      '@noble/curves/nist.js',
      'typebox',
    ],
  },
  test: {
    name: 'core-browser',
    // What differs by runtime: tools/lib/runtime-suite.mjs says which files and why.
    include: RUNTIME_SUITE,
    // The core keeps no state between calls (as in the Node projects): its files share one frame's
    // modules instead of each loading the core, noble and fast-check into a frame of its own; the
    // run took about 43 core-seconds instead of 58, the same 203 tests passing.
    isolate: false,
    reporters: ['default', './tools/lib/timing-reporter.mjs'],
    testTimeout: 300_000,
    browser: {
      enabled: true,
      headless: true,
      screenshotFailures: false,
      provider: playwright({
        launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
      }),
      instances: [{ browser: 'chromium' }],
    },
  },
});
