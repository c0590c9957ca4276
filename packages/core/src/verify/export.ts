// ExportArchive (wire-format s.9): the receipt signs the manifest string, which commits to the
// payload hash and the counts. The export context is pinned; proof.context is display only.
import { sha256Hex } from '../encoding/hash.js';
import { tryCanonicalize } from '../encoding/jcs.js';
import type { VerifyContext } from './context.js';
import { countMessages } from '../wire/signed.js';
import { checkReceipt } from './receipt.js';
import { has, isNonNegInt, isObj, parseObject, type JsonObject } from '../lib/json.js';
import { createdOf, foldVerdict, type Verified } from './verdict.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

// V11 (left open by the spec): an export verdict adds `export: {manifestOk, payloadOk, countsOk}`.
/**
 * The verdict of an export archive (V11): the receipt, and whether the manifest, payload hash and counts hold.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(archive, { trustedKeys });
 * if (res.kind === 'svc-export') console.log(res.verdict.export.payloadOk);
 * ```
 */
export type ExportVerdict = Static<typeof S.ExportVerdict>;

export function verifyExport(b: JsonObject, vc: VerifyContext): Verified<ExportVerdict> {
  const proof = isObj(b.proof) ? b.proof : {};
  const manifestText = typeof proof.manifest === 'string' ? proof.manifest : null;
  const manifest = parseObject(manifestText);
  // Only the canonical spelling is accepted, so duplicate members cannot hide a second meaning. The
  // top-level copies are unsigned: `signed_manifest` must be the signed manifest itself, and
  // `service` the service whose export context signed it, or they would be a second reading.
  const manifestOk =
    !!manifest &&
    tryCanonicalize(manifest) === manifestText &&
    typeof manifest.payload_sha256 === 'string' &&
    isNonNegInt(manifest.conversations) &&
    isNonNegInt(manifest.messages) &&
    (!has(b, 'signed_manifest') || b.signed_manifest === manifestText) &&
    (!has(b, 'service') || b.service === vc.names.service);
  const convs = Array.isArray(b.conversations) ? b.conversations : null;
  const payloadText = convs ? tryCanonicalize(convs) : null;
  const payloadOk = manifestOk && payloadText !== null && manifest!.payload_sha256 === sha256Hex(payloadText);
  const messages = convs ? countMessages(convs) : null;
  const countsOk =
    manifestOk &&
    !!convs &&
    manifest!.conversations === convs.length &&
    messages !== null &&
    manifest!.messages === messages &&
    (!has(b, 'count') || b.count === convs.length);
  const rc = checkReceipt(
    proof.receipt,
    proof.receiptKey,
    manifestText === null ? null : sha256Hex(manifestText),
    vc.names.contexts.export,
    vc,
  );
  const checks = rc.verdict.present ? 1 : 0;
  const { overallOk, signerRecognized } = foldVerdict(checks, rc.layerOk, rc.recognized, manifestOk, payloadOk, countsOk);
  return {
    verdict: { overallOk, checks, receipt: rc.verdict, export: { manifestOk, payloadOk, countsOk }, signerRecognized },
    // The archive's own `created` is unsigned; the signed proof's is the one shown.
    facts: { created: createdOf(b.proof) },
  };
}
