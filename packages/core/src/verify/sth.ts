// Signed tree heads (V10) and consistency bundles (V9), wire-format s.10.
import { fromHex, isHex } from '../encoding/bytes.js';
import { sha256Hex } from '../encoding/hash.js';
import { tryCanonicalize } from '../encoding/jcs.js';
import { verifyConsistency } from '../merkle/verify.js';
import type { VerifyContext } from './context.js';
import type { TreeHeadBody } from '../wire/signed.js';

export type { TreeHeadBody };
import { checkReceipt } from './receipt.js';
import { isNonNegInt, isObj, parseObject, type JsonObject } from '../lib/json.js';
import { foldVerdict, type Verified } from './verdict.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

/**
 * A tree head's size, root and time, as a consistency verdict shows them.
 *
 * @example
 * ```ts
 * if (res.kind === 'svc-consistency') console.log(res.verdict.consistency.old.treeSize, res.verdict.consistency.new.treeSize);
 * ```
 */
export type HeadSummary = Static<typeof S.HeadSummary>;

/**
 * The verdict of a signed tree head (V10): its receipt, and whether the body is canonical and restated by the receipt.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(sth, { trustedKeys });
 * if (res.kind === 'svc-sth') console.log(res.verdict.sth.treeSize, res.verdict.sth.bodyOk);
 * ```
 */
export type SthVerdict = Static<typeof S.SthVerdict>;

/**
 * The verdict of a consistency bundle (V9): both heads, the proof between them, one log and time order.
 *
 * @example
 * ```ts
 * if (res.kind === 'svc-consistency') console.log(res.verdict.consistency.proofOk, res.verdict.timestampOrderOk);
 * ```
 */
export type ConsistencyVerdict = Static<typeof S.ConsistencyVerdict>;

/**
 * The tree head body when `signed` is its exact canonical form with well-typed members.
 *
 * @example
 * ```ts
 * parseTreeHead('{"log":"svc-ledger","root_hash":"' + '00'.repeat(32) + '","timestamp":1767225600000,"tree_size":1}'); // the body
 * parseTreeHead('{"tree_size":1,"log":"svc-ledger"}'); // null: not the canonical form of a whole body
 * ```
 */
export function parseTreeHead(signed: unknown): TreeHeadBody | null {
  const o = parseObject(signed);
  if (!o || tryCanonicalize(o) !== signed || Object.keys(o).length !== 4) return null;
  if (typeof o.log !== 'string' || !isNonNegInt(o.tree_size) || !isHex(o.root_hash, 32) || !isNonNegInt(o.timestamp)) return null;
  return { log: o.log, tree_size: o.tree_size, root_hash: o.root_hash, timestamp: o.timestamp };
}

export function verifySth(b: JsonObject, vc: VerifyContext): Verified<SthVerdict> {
  const signed = typeof b.signed === 'string' ? b.signed : null;
  const body = parseTreeHead(signed);
  const rc = checkReceipt(b.receipt, b.key, signed === null ? null : sha256Hex(signed), vc.names.contexts.sth, vc);
  const r = rc.receipt;
  // The receipt's own fields must restate the body (v 1, model = log, ts = floor(timestamp/1000)).
  const bodyOk = !!body && !!r && r.v === 1 && r.model === body.log && r.ts === Math.floor(body.timestamp / 1000);
  const checks = rc.verdict.present ? 1 : 0;
  const { overallOk, signerRecognized } = foldVerdict(checks, rc.layerOk, rc.recognized, bodyOk);
  const verdict: SthVerdict = {
    overallOk,
    checks,
    receipt: rc.verdict,
    sth: {
      bodyOk,
      log: body?.log ?? null,
      treeSize: body?.tree_size ?? null,
      rootHash: body?.root_hash ?? null,
      timestamp: body?.timestamp ?? null,
    },
    signerRecognized,
  };
  // A tree head carries its time in the signed body, not as `created`.
  return { verdict, facts: { created: null } };
}

function summary(v: SthVerdict): HeadSummary {
  return { treeSize: v.sth.treeSize, rootHash: v.sth.rootHash, timestamp: v.sth.timestamp };
}

export function verifyConsistencyBundle(b: JsonObject, vc: VerifyContext): Verified<ConsistencyVerdict> {
  const oldV = verifySth(isObj(b.old) ? b.old : {}, vc).verdict;
  const newV = verifySth(isObj(b.new) ? b.new : {}, vc).verdict;
  const o = oldV.sth;
  const n = newV.sth;
  let proofOk = false;
  const hashes = Array.isArray(b.proof) ? b.proof.map((h: unknown) => fromHex(h, 32)) : null;
  if (hashes?.every((h) => h !== null) && o.treeSize !== null && n.treeSize !== null && o.rootHash && n.rootHash) {
    proofOk = verifyConsistency(o.treeSize, n.treeSize, fromHex(o.rootHash)!, fromHex(n.rootHash)!, hashes as Uint8Array[]);
  }
  const genuine = oldV.overallOk && newV.overallOk;
  const verdict: ConsistencyVerdict = {
    overallOk: false,
    checks: oldV.checks + newV.checks,
    old: oldV,
    new: newV,
    consistency: { old: summary(oldV), new: summary(newV), proofOk },
    signerRecognized: false,
  };
  if (genuine) verdict.timestampOrderOk = o.timestamp! <= n.timestamp!;
  // The two heads are the layers; the proof, one log and the timestamp order are V9's conditions.
  Object.assign(
    verdict,
    foldVerdict(
      verdict.checks,
      genuine,
      oldV.signerRecognized && newV.signerRecognized,
      o.log === n.log,
      proofOk,
      verdict.timestampOrderOk === true,
    ),
  );
  return { verdict, facts: { created: null } };
}
