// WF-KINDS: the one table of document kinds (issue 54 part 1). Each kind's wire name
// (`<service>-<suffix>`), how it is recognised, the schema its body follows and whether a record can
// be made of it are written here and nowhere else: names.ts, detect.ts, the response union in
// dispatch.ts, the verify route's OpenAPI `oneOf` and the page's views derive from it, and a test
// fails on a kind's suffix spelt in any other source. Adding a kind: docs/development.md.
// A leaf: it imports nothing, so every layer may read it.

/**
 * Every kind the verifier knows, in the order detection tries them within each rule:
 * `schema` (a `schema` member names it), `kind` (the `kind` member names it), `nested` (the
 * `proof` member's `kind` names it), `shape` (a signed tree head's members).
 *
 * @example
 * ```ts
 * for (const k of KINDS) console.log(`${namesFor('svc').service}-${k.suffix}`, k.schema);
 * ```
 */
export const KINDS = [
  { kind: 'proof', suffix: 'proof', detect: 'kind', schema: 'ProofBundle', record: true },
  { kind: 'transcript', suffix: 'transcript', detect: 'kind', schema: 'TranscriptBundle', record: false },
  { kind: 'run', suffix: 'autopilot-run', detect: 'kind', schema: 'RunProofBundle', record: true },
  { kind: 'export', suffix: 'export', detect: 'nested', schema: 'ExportArchive', record: false },
  { kind: 'sth', suffix: 'sth', detect: 'shape', schema: 'SthBundle', record: false },
  { kind: 'consistency', suffix: 'consistency', detect: 'kind', schema: 'ConsistencyBundle', record: false },
  { kind: 'record', suffix: 'ai-provenance-record', detect: 'schema', schema: 'AiProvenanceRecord', record: false },
] as const;

/**
 * One entry of {@link KINDS}.
 *
 * @example
 * ```ts
 * const proof: KindEntry = KINDS[0];
 * ```
 */
export type KindEntry = (typeof KINDS)[number];

/**
 * The kinds of document the verifier knows, and `unknown`.
 *
 * @example
 * ```ts
 * const k: Kind = detectKind(JSON.parse(text)).kind;
 * ```
 */
export type Kind = KindEntry['kind'] | 'unknown';

/**
 * A kind's wire name without the service: `svc-autopilot-run` is `autopilot-run`.
 *
 * @example
 * ```ts
 * const s: KindSuffix = 'autopilot-run';
 * ```
 */
export type KindSuffix = KindEntry['suffix'];

/**
 * The suffix of a known kind.
 *
 * @example
 * ```ts
 * suffixOf('run'); // 'autopilot-run'
 * ```
 */
export function suffixOf(kind: Exclude<Kind, 'unknown'>): KindSuffix {
  return KINDS.find((k) => k.kind === kind)!.suffix;
}
