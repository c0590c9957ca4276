/**
 * fast-check arbitraries for valid bundles of every kind and their mutations, and the
 * structure-aware fuzzers. Needs fast-check (an optional peer dependency).
 *
 * @module arbitraries
 */
// @svc/core/arbitraries: fast-check arbitraries for valid bundles of every kind and their
// mutations, and the structure-aware fuzzers. Needs fast-check (an optional peer dependency);
// deterministic keys alone are @svc/core/testing, which needs nothing.
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
export { fuzzUnsigned, type UnsignedFuzzStats } from './fuzz-unsigned.js';
