// verifyBundle: the exact body POST /api/v1/verify answers with 200, or the typed error for its
// 400/413/422 answers. The dispatcher sits above the per-kind verifiers and records, so imports
// only run downward. Pure: nothing is fetched, stored or timed.
import { detectKind } from './detect.js';
import type { Kind, KindEntry } from './kinds.js';
import { parseDocument } from './parse.js';

export { MAX_BODY_BYTES, parseDocument } from './parse.js';
import { SvcError } from './errors.js';
import { verifyRecord } from './record/verify.js';
import { VERIFY_DISCLAIMER } from './text.js';
import { makeContext, type VerifyContext, type VerifyOptions } from './verify/context.js';
import { defaultCrypto, type CryptoBackend } from './crypto/backend.js';
import { CheckBatch } from './verify/batch.js';
import { verifyExport, type ExportVerdict } from './verify/export.js';
import { verifyProofBundle, type ProofVerdict } from './verify/proof.js';
import { verifyRun, type RunVerdict } from './verify/run.js';
import { verifyConsistencyBundle, verifySth, type ConsistencyVerdict, type SthVerdict } from './verify/sth.js';
import { verifyTranscript, type TranscriptVerdict } from './verify/transcript.js';
import type { JsonObject } from './lib/json.js';
import { createdOf, type Facts, type Verified } from './verify/verdict.js';

/**
 * The verdict of any kind; narrow through `VerifyResponse.kind`.
 *
 * @example
 * ```ts
 * const verdict: AnyVerdict = (await verifyBundle(text)).verdict;
 * console.log(verdict.overallOk, verdict.checks);
 * ```
 */
export type AnyVerdict = ProofVerdict | TranscriptVerdict | RunVerdict | ExportVerdict | SthVerdict | ConsistencyVerdict;

/**
 * What a verified record adds to its response (V4, V8).
 *
 * @example
 * ```ts
 * const res = await verifyBundle(recordText, { trustedKeys });
 * if (res.kind === 'svc-ai-provenance-record') console.log(res.record.summaryOk, res.record.unattested);
 * ```
 */
export interface RecordSummary {
  schema: string;
  summaryOk: true;
  originClaimUnconfirmed?: true;
  /** The record's own statements (generated, notes, subject): shown, never attested. */
  unattested?: string[];
}

/**
 * What every verify answer holds whatever its kind: the deployment, the document's own `created`,
 * whether a pinned key signed it, and the disclaimer (a verdict attests origin and integrity,
 * never accuracy).
 *
 * @example
 * ```ts
 * const base: VerifyResponseBase = await verifyBundle(text, { trustedKeys });
 * console.log(base.signerRecognized, base.disclaimer);
 * ```
 */
export interface VerifyResponseBase {
  service: string;
  created: number | null;
  signerRecognized: boolean;
  disclaimer: string;
}

/**
 * The answer of POST /api/v1/verify, a union on `kind` (`<service>-<kind>`), so comparing `kind`
 * narrows the verdict without a cast.
 *
 * @example
 * const res = await verifyBundle(text, { trustedKeys });
 * if (res.kind === 'svc-proof') console.log(res.verdict.receipt.sigOk);
 * else if (res.kind === 'svc-ai-provenance-record') console.log(res.record.summaryOk);
 */
export type VerifyResponse = {
  [K in keyof KindVerdicts]: VerifyResponseBase & {
    kind: `${string}-${Extract<KindEntry, { kind: K }>['suffix']}`;
    verdict: KindVerdicts[K];
  } & (K extends 'record' ? { record: RecordSummary } : Record<never, never>);
}[keyof KindVerdicts];

/**
 * Each kind's verdict, by the kind's name in the table of kinds (kinds.ts): what `VerifyResponse`
 * is made of. A kind missing here does not compile (below).
 *
 * @example
 * ```ts
 * const v: KindVerdicts['proof'] = (await verifyBundle(text)).verdict as ProofVerdict;
 * ```
 */
export interface KindVerdicts {
  proof: ProofVerdict;
  transcript: TranscriptVerdict;
  run: RunVerdict;
  export: ExportVerdict;
  sth: SthVerdict;
  consistency: ConsistencyVerdict;
  record: ProofVerdict | RunVerdict;
}
const everyKindHasAVerdict: [Exclude<Exclude<Kind, 'unknown'>, keyof KindVerdicts>] extends [never] ? true : never = true;
void everyKindHasAVerdict;

/** What the response adds for a record: its summary, and recognition judged with its origin claim. */
interface RecordFacts extends Facts {
  record: RecordSummary;
  signerRecognized: boolean;
}

type KindVerifier = (doc: JsonObject, vc: VerifyContext) => Verified<AnyVerdict, Facts | RecordFacts>;

// Every kind's verifier, by kind: the one contract `(document, context) => { verdict, facts }`.
const VERIFIERS: Record<Exclude<Kind, 'unknown'>, KindVerifier> = {
  proof: verifyProofBundle,
  transcript: verifyTranscript,
  run: verifyRun,
  export: verifyExport,
  sth: verifySth,
  consistency: verifyConsistencyBundle,
  record: (o, vc) => {
    const rc = verifyRecord(o, vc);
    return {
      verdict: rc.recomputed.verdict,
      facts: { created: createdOf(o.proof), record: rc.record, signerRecognized: rc.signerRecognized },
    };
  },
};

function verifyIn(doc: unknown, vc: VerifyContext): VerifyResponse {
  const d = detectKind(doc, vc.names.service);
  if (d.kind === 'unknown') {
    if (d.sthWrapper) {
      throw new SvcError(
        'sth_wrapper',
        'a ledger response wrapping signed_tree_head is not a bundle: submit the signed_tree_head object by itself',
      );
    }
    throw new SvcError('unknown_kind', 'not a recognised bundle');
  }
  const { verdict, facts } = VERIFIERS[d.kind](doc as JsonObject, vc);
  // The one place a response is assembled; its kind and verdict come from the same table entry.
  const res = {
    service: vc.names.service,
    kind: d.name,
    created: facts.created,
    verdict,
    signerRecognized: 'record' in facts ? facts.signerRecognized : verdict.signerRecognized,
    disclaimer: VERIFY_DISCLAIMER,
  } as VerifyResponse;
  if ('record' in facts) (res as Extract<VerifyResponse, { record: RecordSummary }>).record = facts.record;
  return res;
}

/**
 * Verify with a synchronous backend (noble by default). Returns the body or throws SvcError.
 *
 * @example
 * ```ts
 * const res = verifyBundleSync(bundleText, { trustedKeys });
 * console.log(res.verdict.overallOk, res.signerRecognized);
 * ```
 */
export function verifyBundleSync(input: unknown, options: VerifyOptions = {}): VerifyResponse {
  return verifyIn(parseDocument(input), makeContext(options));
}

/**
 * Verify a proof of an answer, or any other bundle kind (transcript, run, export, tree head,
 * consistency, record), given as text, bytes or a parsed object. Resolves to the verdict:
 * `verdict.overallOk` says the signatures verify and the signed content is unaltered (integrity);
 * `signerRecognized` adds that the signer is one of the `trustedKeys` you pinned (origin). Neither
 * says the answer is accurate. A document that fails verification is a verdict, not an error: it
 * rejects only with {@link SvcError} (closed `code`s: unreadable, too large, not a known kind).
 *
 * @example
 * ```ts
 * const res = await verifyBundle(bundleText, { trustedKeys });
 * if (!res.verdict.overallOk) console.log('does not verify');
 * else if (!res.signerRecognized) console.log('verifies, but the signer is not one you pin');
 * ```
 */
export async function verifyBundle(input: unknown, options: VerifyOptions = {}): Promise<VerifyResponse> {
  // With an asynchronous backend (WebCrypto) a collecting pass finds the signature checks the document
  // needs, the backend computes them as one batch, and a folding pass reads the answers
  // (verify/batch.ts); when every check holds, the collecting pass's verdict is already the answer.
  const backend = options.crypto ?? (await defaultCrypto());
  const doc = parseDocument(input);
  if (backend.sync) return verifyIn(doc, makeContext({ ...options, crypto: backend }));
  return (await verifyBatched(doc, options, backend)).response;
}

/** verifyBundle's two passes, with how many checks the fold found uncollected (tests assert 0). */
export async function verifyBatched(
  doc: unknown,
  options: VerifyOptions,
  backend: CryptoBackend,
): Promise<{ response: VerifyResponse; misses: number }> {
  const batch = new CheckBatch(backend);
  // The collecting pass may refuse (a record's summary recomputed under "valid" answers): a refusal
  // stands only where its answers were the real ones.
  let first: VerifyResponse | undefined;
  let refusal: unknown;
  try {
    first = verifyIn(doc, makeContext(options, batch.collect));
  } catch (e) {
    refusal = e;
  }
  if (batch.pending()) await batch.answer();
  if (batch.allValid()) {
    if (first === undefined) throw refusal;
    return { response: first, misses: 0 };
  }
  const response = verifyIn(doc, makeContext(options, batch.fold));
  return { response, misses: batch.misses };
}
