// Re-verification of a posted record (V4, V8, wire-format s.11): recompute `attested` from the
// embedded proof and compare field by field; any over-claim is a 422, never a quiet pass.
import { SvcError } from '../errors.js';
import { tryCanonicalize } from '../encoding/jcs.js';
import { RECORD_DISCLAIMER, RECORD_VERIFY_INSTRUCTIONS } from '../text.js';
import type { VerifyContext } from '../verify/context.js';
import { has, isObj, type JsonObject } from '../lib/json.js';
import { recompute, type Recomputed } from './build.js';
import type { AlgorithmRange } from '../verify/receipt.js';
import type { ProofVerdict } from '../verify/proof.js';
import { aiActSupport, TABLE_EDITIONS } from './table.js';

export interface RecordCheck {
  recomputed: Recomputed;
  record: { schema: string; summaryOk: true; originClaimUnconfirmed?: true; unattested?: string[] };
  signerRecognized: boolean;
}

// WF-RECORD: records are closed, and the maker's own words are never shown as attested.
/** Every member a record may have; any other (a `certification`, say) is refused, never shown as attested. */
const MEMBERS = new Set([
  'schema',
  'schema_version',
  'generated',
  'subject',
  'attested',
  'ai_act_support',
  'proof',
  'verify_instructions',
  'disclaimer',
  'notes',
  'record_type',
]);
/** Members that are the record maker's own statements: nothing signs or recomputes them. */
const MAKERS_WORDS = ['generated', 'notes', 'subject'];

function mismatch(field: string): SvcError {
  return new SvcError('record_mismatch', `record field ${field} does not match what its proof supports`);
}

const same = (a: unknown, b: unknown): boolean => {
  const x = tryCanonicalize(a);
  return x !== null && x === tryCanonicalize(b);
};

/** A sorted list without repeats, holding every algorithm of `base` and only those of `verified`. */
function algorithmsWithin(claimed: unknown, range: AlgorithmRange): boolean {
  if (!Array.isArray(claimed) || !claimed.every((a) => typeof a === 'string')) return false;
  const sorted = [...new Set(claimed as string[])].sort();
  if (!same(sorted, claimed)) return false;
  return range.base.every((a) => sorted.includes(a)) && sorted.every((a) => range.verified.includes(a));
}

export function verifyRecord(rec: JsonObject, vc: VerifyContext): RecordCheck {
  if (rec.schema_version !== 1) throw mismatch('schema_version');
  const extra = Object.keys(rec).find((k) => !MEMBERS.has(k));
  if (extra !== undefined)
    throw new SvcError('record_mismatch', `record member ${extra} is not part of a record, so nothing could attest it`);
  if (!isObj(rec.proof)) throw new SvcError('unknown_kind', 'record carries no proof bundle');
  if (!isObj(rec.attested)) throw mismatch('attested');
  const rc = recompute(rec.proof, vc);
  const claimed = rec.attested;
  const fresh = rc.attested as unknown as JsonObject;
  const fields = new Set([...Object.keys(claimed), ...Object.keys(fresh)]);
  fields.delete('signer_recognized');
  fields.delete('algorithms');
  fields.delete('logged');
  for (const f of fields) {
    if (has(claimed, f) !== has(fresh, f) || !same(claimed[f], fresh[f])) throw mismatch(`attested.${f}`);
  }
  // E5 whatever the verifier pins: `algorithms` lists the signatures its maker's pins recognised. A
  // list within what verifies here is the record's; one naming signatures this verifier's pins do
  // not recognise is an origin claim it cannot confirm, reported beside, never a mismatch.
  if (!algorithmsWithin(claimed.algorithms, rc.algorithmRange)) throw mismatch('attested.algorithms');
  const fresher = new Set(rc.attested.algorithms);
  let originClaimUnconfirmed = (claimed.algorithms as string[]).some((a) => !fresher.has(a));
  // `logged` depends on the verifier's log policy the same way: attested where the checkpoint was
  // judged by the log's keys. A record claiming the place its path leads to, where this verifier
  // cannot judge the checkpoint, is an unconfirmed claim; a record that does not claim it, fine.
  if (has(claimed, 'logged')) {
    const log = rc.kind === 'proof' ? (rc.verdict as ProofVerdict).log : undefined;
    const path = rc.attested.signed && log?.ok ? { origin: log.origin, index: log.index, tree_size: log.treeSize } : undefined;
    if (has(fresh, 'logged') ? !same(claimed.logged, fresh.logged) : !same(claimed.logged, path)) throw mismatch('attested.logged');
    if (!has(fresh, 'logged')) originClaimUnconfirmed = true;
  }
  const claim = claimed.signer_recognized;
  if (claim === true) {
    if (!rc.attested.signed) throw mismatch('attested.signer_recognized');
    originClaimUnconfirmed ||= rc.attested.signer_recognized !== true;
  } else if (claim !== false && claim !== null && has(claimed, 'signer_recognized')) {
    throw mismatch('attested.signer_recognized');
  }
  const wantType = rc.kind === 'run' ? 'autopilot_run' : undefined;
  if (rec.record_type !== wantType) throw mismatch('record_type');
  // Any published edition of the table, whole: a record made before the Code of Practice rows keeps verifying.
  const logged = has(claimed, 'logged');
  if (has(rec, 'ai_act_support') && !TABLE_EDITIONS.some((e) => same(rec.ai_act_support, aiActSupport(logged, e))))
    throw mismatch('ai_act_support');
  if (rec.disclaimer !== RECORD_DISCLAIMER) throw mismatch('disclaimer');
  if (has(rec, 'verify_instructions') && rec.verify_instructions !== RECORD_VERIFY_INSTRUCTIONS) throw mismatch('verify_instructions');
  // E5: a record posted unchanged re-verifies with summaryOk.
  const record: RecordCheck['record'] = { schema: vc.names.kinds.record, summaryOk: true };
  if (originClaimUnconfirmed) record.originClaimUnconfirmed = true;
  const unattested = MAKERS_WORDS.filter((k) => has(rec, k));
  if (unattested.length > 0) record.unattested = unattested;
  return { recomputed: rc, record, signerRecognized: rc.verdict.signerRecognized && !originClaimUnconfirmed };
}
