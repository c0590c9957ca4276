// @svc/core/testing: deterministic keys for tests, with no dependency beyond the core's own. The
// fast-check arbitraries and the fuzzers, which need fast-check installed, are @svc/core/arbitraries.
export { testKeys, seededBytes, seededRandom, type TestKeys } from './keys.js';
export { asKind, type ResponseOf } from './kind.js';
