// verifyBundle: the exact body POST /api/v1/verify answers with 200, or the typed error for its
// 400/413/422 answers. The dispatcher sits above the per-kind verifiers and records, so imports
// only run downward. Pure: nothing is fetched, stored or timed.
import { detectKind } from './detect.js';
import { SvcError } from './errors.js';
import { fromUtf8, utf8 } from './encoding/bytes.js';
import { verifyRecord } from './record/verify.js';
import { VERIFY_DISCLAIMER } from './text.js';
import { makeContext, type VerifyContext, type VerifyOptions } from './verify/context.js';
import { defaultCrypto } from './crypto/backend.js';
import { CallPlan } from './verify/plan.js';
import { verifyExport, type ExportVerdict } from './verify/export.js';
import { verifyProofBundle, type ProofVerdict } from './verify/proof.js';
import { verifyRun, type RunVerdict } from './verify/run.js';
import { verifyConsistencyBundle, verifySth, type ConsistencyVerdict, type SthVerdict } from './verify/sth.js';
import { verifyTranscript, type TranscriptVerdict } from './verify/transcript.js';
import { isInt, isObj, type Obj } from './lib/json.js';
import { duplicateMember } from './lib/members.js';

/** Request bodies above this many bytes are refused (interface.md Limits: 2 MB). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export type AnyVerdict = ProofVerdict | TranscriptVerdict | RunVerdict | ExportVerdict | SthVerdict | ConsistencyVerdict;

export interface VerifyResponse {
  service: string;
  kind: string;
  created: number | null;
  verdict: AnyVerdict;
  signerRecognized: boolean;
  record?: { schema: string; summaryOk: true; originClaimUnconfirmed?: true; unattested?: string[] };
  disclaimer: string;
}

/**
 * Parse a posted document. Strings and bytes are JSON text (size-checked); anything else is taken
 * as an already parsed JSON value.
 */
export function parseDocument(input: unknown): unknown {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) return input;
  let text: string;
  if (input instanceof Uint8Array) {
    if (input.length > MAX_BODY_BYTES) throw new SvcError('too_large', 'payload over 2 MB');
    try {
      text = fromUtf8(input);
    } catch {
      throw new SvcError('invalid_json', 'body is not valid UTF-8');
    }
  } else {
    // UTF-8 length without allocating: at most 3 bytes per UTF-16 unit.
    if (input.length * 3 > MAX_BODY_BYTES && utf8(input).length > MAX_BODY_BYTES) {
      throw new SvcError('too_large', 'payload over 2 MB');
    }
    text = input;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new SvcError('invalid_json', 'body is not valid JSON');
  }
  const repeated = duplicateMember(text);
  if (repeated !== null) throw new SvcError('invalid_json', `body is not I-JSON: member name repeated at ${repeated}`);
  return doc;
}

function createdOf(o: unknown): number | null {
  return isObj(o) && isInt(o.created) ? o.created : null;
}

function verifyIn(doc: unknown, vc: VerifyContext): VerifyResponse {
  const d = detectKind(doc, vc.names.service);
  const base = { service: vc.names.service, kind: d.name, disclaimer: VERIFY_DISCLAIMER };
  const o = doc as Obj;
  const answer = (verdict: AnyVerdict, created: number | null): VerifyResponse => ({
    service: base.service,
    kind: base.kind,
    created,
    verdict,
    signerRecognized: verdict.signerRecognized,
    disclaimer: base.disclaimer,
  });
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
      const res = answer(rc.recomputed.verdict, createdOf(o.proof));
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
 * asynchronous backend (WebCrypto) the checks the document needs are planned by a synchronous
 * pass, computed together, and the verdict assembled by a pass that reads their results.
 */
export async function verifyBundle(input: unknown, options: VerifyOptions = {}): Promise<VerifyResponse> {
  const backend = options.crypto ?? (await defaultCrypto());
  const doc = parseDocument(input);
  if (backend.sync) return verifyIn(doc, makeContext({ ...options, crypto: backend }));
  const plan = new CallPlan(backend);
  for (;;) {
    // A pass that meets an unanswered check may refuse (a record's summary cannot match a
    // placeholder): only a pass whose every check was answered decides.
    let res: VerifyResponse | undefined;
    let refusal: unknown;
    try {
      res = verifyIn(doc, makeContext(options, plan.compute));
    } catch (e) {
      refusal = e;
    }
    if (!plan.unresolved()) {
      if (res === undefined) throw refusal;
      return res;
    }
    await plan.settle();
  }
}
