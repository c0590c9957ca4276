// @svc/core/testing: deterministic keys and fast-check arbitraries for property tests.
export { testKeys, seededBytes, seededRandom, type TestKeys } from './keys.js';
export {
  anyText,
  proofInput,
  proofBundle,
  runBundle,
  exportArchive,
  transcriptBundle,
  sthBundle,
  consistencyBundleArb as consistencyBundle,
  provenanceRecord,
  mutated,
  isDisplayOnlyPath,
  leafPaths,
  type Mutation,
} from './arbitraries.js';
export { fuzzVerify, fuzzCorpus, mutate, prng, type FuzzFinding, type FuzzStats, type FuzzOptions, type Mutant } from './fuzz.js';
export { fuzzTlog, type TlogFuzzStats } from './fuzz-tlog.js';
