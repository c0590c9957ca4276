// verifyBundle: the exact body POST /api/v1/verify answers with 200, or the typed error for its
// 400/413/422 answers. The dispatcher sits above the per-kind verifiers and records, so imports
// only run downward. Pure: nothing is fetched, stored or timed.
import { detectKind } from './detect.js';
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
import { isInt, isObj, type Obj } from './lib/json.js';

export type AnyVerdict = ProofVerdict | TranscriptVerdict | RunVerdict | ExportVerdict | SthVerdict | ConsistencyVerdict;

/** What a verified record adds to its response (V4, V8). */
export interface RecordSummary {
  schema: string;
  summaryOk: true;
  originClaimUnconfirmed?: true;
  /** The record's own statements (generated, notes, subject): shown, never attested. */
  unattested?: string[];
}

interface ResponseBase {
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
export type VerifyResponse =
  | (ResponseBase & { kind: `${string}-proof`; verdict: ProofVerdict })
  | (ResponseBase & { kind: `${string}-transcript`; verdict: TranscriptVerdict })
  | (ResponseBase & { kind: `${string}-autopilot-run`; verdict: RunVerdict })
  | (ResponseBase & { kind: `${string}-export`; verdict: ExportVerdict })
  | (ResponseBase & { kind: `${string}-sth`; verdict: SthVerdict })
  | (ResponseBase & { kind: `${string}-consistency`; verdict: ConsistencyVerdict })
  | (ResponseBase & { kind: `${string}-ai-provenance-record`; verdict: ProofVerdict | RunVerdict; record: RecordSummary });

function createdOf(o: unknown): number | null {
  return isObj(o) && isInt(o.created) ? o.created : null;
}

function verifyIn(doc: unknown, vc: VerifyContext): VerifyResponse {
  const d = detectKind(doc, vc.names.service);
  const base = { service: vc.names.service, kind: d.name, disclaimer: VERIFY_DISCLAIMER };
  const o = doc as Obj;
  // The one place a response is assembled: its kind and verdict come from the same case below.
  const answer = (verdict: AnyVerdict, created: number | null): VerifyResponse =>
    ({
      service: base.service,
      kind: base.kind,
      created,
      verdict,
      signerRecognized: verdict.signerRecognized,
      disclaimer: base.disclaimer,
    }) as VerifyResponse;
  switch (d.kind) {
    case 'proof':
      return answer(verifyProofBundle(o, vc).verdict, createdOf(o));
    case 'transcript':
      return answer(verifyTranscript(o, vc), createdOf(o));
    case 'run':
      return answer(verifyRun(o, vc).verdict, createdOf(o));
    case 'export':
      return answer(verifyExport(o, vc), createdOf(o.proof));
    case 'sth':
      return answer(verifySth(o, vc), null);
    case 'consistency':
      return answer(verifyConsistencyBundle(o, vc), null);
    case 'record': {
      const rc = verifyRecord(o, vc);
      const res = answer(rc.recomputed.verdict, createdOf(o.proof)) as Extract<VerifyResponse, { record: RecordSummary }>;
      res.signerRecognized = rc.signerRecognized;
      res.record = rc.record;
      return res;
    }
    case 'unknown':
      if (d.sthWrapper) {
        throw new SvcError(
          'sth_wrapper',
          'a ledger response wrapping signed_tree_head is not a bundle: submit the signed_tree_head object by itself',
        );
      }
      throw new SvcError('unknown_kind', 'not a recognised bundle');
  }
}

/** Verify with a synchronous backend (noble by default). Returns the body or throws SvcError. */
export function verifyBundleSync(input: unknown, options: VerifyOptions = {}): VerifyResponse {
  return verifyIn(parseDocument(input), makeContext(options));
}

/**
 * Verify any bundle kind. Resolves to the VerifyResponse body; rejects only with SvcError. With an
 * asynchronous backend (WebCrypto) a collecting pass finds the signature checks the document needs,
 * the backend computes them as one batch, and a folding pass reads the answers (verify/batch.ts);
 * when every check holds, the collecting pass's verdict is already the answer.
 */
export async function verifyBundle(input: unknown, options: VerifyOptions = {}): Promise<VerifyResponse> {
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
