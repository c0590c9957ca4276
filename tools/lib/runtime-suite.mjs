// What the core's suite runs again outside Node 20 (Node 24, headless Chromium): everything but the
// two property and fuzz files whose subject is the verifier's logic, the same JavaScript on every
// engine. What does differ by runtime (the crypto backend picked, WebCrypto's ML-DSA and Ed25519,
// encodings, the vectors) stays, and backends.test.ts holds every backend to noble's answer on the
// vectors, the ACVP cases and fast-check mutations in each runtime. Those two files were 30 s of
// the Node 24 run and about twice that in Chromium (#42).
export const SAME_ON_EVERY_RUNTIME = ['packages/core/test/properties.test.ts', 'packages/core/test/fuzz.test.ts'];
