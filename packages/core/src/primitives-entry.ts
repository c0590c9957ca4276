/**
 * `@svc/core/primitives`: the building blocks under the verifier, for those who compose their own
 * checks: bytes, hex and base64, SHA-256, RFC 8785 canonical JSON, the signature algorithms with
 * their defensive wrappers (a malformed input is false, never a throw), and which backend computes
 * each. Verifying a bundle needs none of it: `verifyBundle` in the main entry does it all.
 *
 * @module primitives
 */
export * from './encoding/index.js';
export {
  ML_DSA_87,
  SLH_DSA_SHA2_256F,
  FALCON_1024,
  LENGTHS,
  keygen,
  sign,
  verifyMlDsa87,
  verifySlhDsa,
  verifyFalcon1024,
  verifyWith,
  falconMessage,
  syncVerifier,
  type AlgorithmName,
  type KeyPair,
  type RandomSource,
  type SignatureContext,
  type SyncVerify,
} from './crypto/algorithms.js';
export { backendFor } from './crypto/backend.js';
export { nestedDeeperThan } from './lib/json.js';
