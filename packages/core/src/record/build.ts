// AI Provenance Records (E1-E4): the embedded proof, a summary recomputed by verification, the
// published obligation mapping, and notes saying exactly why anything is not attested.
import { KINDS } from '../kinds.js';
import { detectKind } from '../detect.js';
import { SvcError } from '../errors.js';
import { parseDocument } from '../parse.js';
import { RECORD_DISCLAIMER, RECORD_VERIFY_INSTRUCTIONS } from '../text.js';
import { makeContext, type VerifyContext, type VerifyOptions } from '../verify/context.js';
import { verifyProofBundle, type ProofVerdict } from '../verify/proof.js';
import { stepMethods, verifyRun, type RunVerdict } from '../verify/run.js';
import { MAX_JSON_DEPTH } from '../encoding/jcs.js';
import { isInt, nestedDeeperThan, type JsonObject } from '../lib/json.js';
import { attestProof, attestRun, type Attested } from './attested.js';
import type { AlgorithmRange } from '../verify/receipt.js';
import { aiActSupport, type AiActSupportItem } from './table.js';
import { MAX_ORG_LENGTH } from '../limits.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/resources.js';
export { MAX_ORG_LENGTH };

/**
 * An AI Provenance Record: evidence of origin and integrity of an answer, never a declaration of
 * conformity. The schema's shape (`AiProvenanceRecord` in `@svc/core/schemas`, what a verifier
 * accepts), with what buildRecord always writes required: the table, the instructions, the notes.
 *
 * @example
 * ```ts
 * const record: AiProvenanceRecord = buildRecord(bundle, { generated: 1767225600, org: 'Acme', trustedKeys });
 * console.log(record.disclaimer);
 * ```
 */
export type AiProvenanceRecord = Static<typeof S.AiProvenanceRecord> & {
  ai_act_support: AiActSupportItem[];
  verify_instructions: string;
  notes: string[];
  proof: JsonObject;
};

/**
 * Options of buildRecord: the verification options, the generation time (the core has no clock) and a subject organisation.
 *
 * @example
 * ```ts
 * const opts: BuildRecordOptions = { generated: Math.floor(Date.now() / 1000), org: 'Acme', trustedKeys };
 * ```
 */
export interface BuildRecordOptions extends VerifyOptions {
  /** Unix seconds; the core has no clock of its own. */
  generated: number;
  /** Subject organisation (at most 200 characters). */
  org?: string;
}

export interface Recomputed {
  kind: 'proof' | 'run';
  verdict: ProofVerdict | RunVerdict;
  attested: Attested;
  notes: string[];
  /** What `attested.algorithms` may be for a verifier with other pins (see verifyRecord). */
  algorithmRange: AlgorithmRange;
}

/** Verify a proof or run bundle and derive its `attested` summary. */
export function recompute(bundle: unknown, vc: VerifyContext): Recomputed {
  const d = detectKind(bundle, vc.names.service);
  if (d.kind === 'proof') {
    const b = bundle as JsonObject;
    const { verdict, facts } = verifyProofBundle(b, vc);
    return { kind: 'proof', verdict, algorithmRange: facts.algorithmRange, ...attestProof(b, verdict, facts) };
  }
  if (d.kind === 'run') {
    const b = bundle as JsonObject;
    const { verdict, facts } = verifyRun(b, vc);
    return {
      kind: 'run',
      verdict,
      algorithmRange: facts.algorithmRange,
      ...attestRun(b, verdict, facts.algorithms, facts.answerSha256, stepMethods(b.run)),
    };
  }
  if (d.kind === 'unknown') throw new SvcError(d.sthWrapper ? 'sth_wrapper' : 'unknown_kind', 'not a recognised bundle');
  const from = KINDS.filter((k) => k.record).map((k) => vc.names.kinds[k.kind]);
  throw new SvcError('unsupported_kind', `a record is made from a ${from.join(' or ')} bundle, not ${d.name}`);
}

// E6 (left open by the spec): more than 200 code points is invalid_org (422).
/**
 * The organisation name when it is absent or valid; throws SvcError invalid_org otherwise (E6).
 *
 * @example
 * ```ts
 * checkOrg('Acme'); // 'Acme'
 * checkOrg(42); // throws SvcError invalid_org
 * ```
 */
export function checkOrg(org: unknown): string | undefined {
  if (org === undefined) return undefined;
  if (typeof org !== 'string') throw new SvcError('invalid_org', 'org must be a string');
  if ([...org].length > MAX_ORG_LENGTH) throw new SvcError('invalid_org', `org is limited to ${MAX_ORG_LENGTH} characters`);
  return org;
}

/**
 * Build an AI Provenance Record from a proof or run bundle: a parsed value, or JSON text or UTF-8
 * bytes (read as verifyBundle reads them).
 *
 * @example
 * ```ts
 * const K = testKeys('example');
 * const bundle = issueProof({ answer: 'Paris.', model: 'm-1', ts: 1767225600 }, { receipt: K.answer });
 * const record = buildRecord(bundle, { generated: 1767225600, trustedKeys: K.trustedKeys });
 * const res = await verifyBundle(record, { trustedKeys: K.trustedKeys });
 * if (res.kind === 'svc-ai-provenance-record') res.record; // { summaryOk: true, ... }
 * ```
 */
export function buildRecord(input: unknown, options: BuildRecordOptions): AiProvenanceRecord {
  if (!isInt(options.generated)) throw new TypeError('options.generated must be an integer (Unix seconds)');
  const bundle = parseDocument(input);
  const org = checkOrg(options.org);
  const vc = makeContext(options);
  const rc = recompute(bundle, vc);
  // The record embeds the proof whole; one nested past what JSON can canonicalise is refused here,
  // the same in every runtime, instead of by whichever serialiser's stack runs out first.
  if (nestedDeeperThan(bundle, MAX_JSON_DEPTH)) throw new SvcError('invalid_request', 'document too deeply nested');
  const record: AiProvenanceRecord = {
    schema: vc.names.kinds.record,
    schema_version: 1,
    generated: options.generated,
    attested: rc.attested,
    ai_act_support: aiActSupport(rc.attested.logged !== undefined),
    proof: bundle as JsonObject,
    verify_instructions: RECORD_VERIFY_INSTRUCTIONS,
    disclaimer: RECORD_DISCLAIMER,
    notes: rc.notes,
  };
  if (org !== undefined) record.subject = { organisation: org };
  // E3: run records say so.
  if (rc.kind === 'run') record.record_type = 'autopilot_run';
  return record;
}
