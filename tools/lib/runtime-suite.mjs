// What the core's suite runs again outside Node 24 (the system Node, 20 here; headless Chromium):
// the files whose subject can differ by runtime. The rest of the core is the same JavaScript on
// every engine, run on Node 24 in the main suite, and the runtime matrix (tools/scripts/runtime-matrix.mjs) replays
// every test vector through the packed library in Node 20, Node 24, Bun, Deno, workerd and Chromium.
// What can differ, and the file that holds it:
// - the crypto backend a runtime offers (WebCrypto's ML-DSA where it has it, else noble), each held
//   to noble's answers on the vectors, the ACVP and Wycheproof cases and fast-check mutations;
// - the engine's own encodings: TextEncoder/TextDecoder (fatal UTF-8, lone surrogates), base64,
//   and Number-to-string, on which RFC 8785 canonical bytes rest;
// - every vector through the public verifier, C2SP's signed notes and witness texts (UTF-8 read
//   with the engine's decoder).
// The Node 24 run (now the Node 20 one) was 47 s and the Chromium run 73 s with every file but two; this list is #42's
// "what differs by runtime". A core file that starts to touch a runtime global belongs here
// (house.test.ts checks that every source file naming one is mapped below to a file of this list;
// the testing entry's fuzz harnesses are exercised where their property files run, on Node 24).
export const RUNTIME_SUITE = [
  'packages/core/test/client/proofs.test.ts',
  'packages/core/test/crypto/acvp.test.ts',
  'packages/core/test/crypto/backends.test.ts',
  'packages/core/test/crypto/wycheproof.test.ts',
  'packages/core/test/encoding/bytes.test.ts',
  'packages/core/test/encoding/jcs.test.ts',
  'packages/core/test/encoding/surrogates.test.ts',
  'packages/core/test/lib/numbers.test.ts',
  'packages/core/test/envelope/forms.test.ts',
  'packages/core/test/tlog/add-entries.test.ts',
  'packages/core/test/tlog/spec-examples.test.ts',
  'packages/core/test/tlog/vectors.test.ts',
  'packages/core/test/tlog/witness.test.ts',
  'packages/core/test/vectors.test.ts',
];

/** The core source files that name a runtime global, and the file of RUNTIME_SUITE that exercises each. */
export const RUNTIME_GLOBALS = {
  'packages/core/src/client/proofs.ts': 'packages/core/test/client/proofs.test.ts',
  'packages/core/src/crypto/backend.ts': 'packages/core/test/crypto/backends.test.ts',
  'packages/core/src/encoding/bytes.ts': 'packages/core/test/encoding/bytes.test.ts',
  'packages/core/src/envelope/forms.ts': 'packages/core/test/envelope/forms.test.ts',
  'packages/core/src/tlog/add-entries.ts': 'packages/core/test/tlog/add-entries.test.ts',
  'packages/core/src/tlog/note.ts': 'packages/core/test/tlog/vectors.test.ts',
  'packages/core/src/tlog/witness.ts': 'packages/core/test/tlog/witness.test.ts',
};
