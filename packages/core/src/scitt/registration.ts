// A log's registration policy (RFC 9943 s.5.1), as data: which keys may register which claims, and
// the one spelling of a statement the log takes. A signature check alone answers "someone with a
// trusted key signed this"; the policy answers "this key may say this, here", and makes the entry
// depend only on what the issuer signed (no unsigned member, no second ECDSA encoding).
import type { SyncVerify } from '../crypto/algorithms.js';
import { CborError, type CborValue } from '../envelope/cbor.js';
import { COSE_HEADER, readCose1 } from '../envelope/cose.js';
import { ecdsaLowS, scittAlgOfCose, type ClassicalVerify } from './keys.js';
import { SCITT_HEADER, verifyStatement } from './statement.js';
import type { StatementVerdict } from './verdict.js';

/**
 * Whose statements a log registers. `service` keys (the log's own answer keys) alone may claim the
 * service's identity (`iss`, a `sub` under `subPrefix`, its statement `typ`); `listed` keys (the
 * operator's list of issuers) may claim anything else and never that identity.
 *
 * @example
 * ```ts
 * const policy: RegistrationPolicy = {
 *   service: [coseKey('ML-DSA-87', answerKey)],
 *   listed: jwks.keys,
 *   reserved: { iss: 'svc', subPrefix: 'urn:svc:answer:', typ: 'application/vnd.svc.answer-statement+cose' },
 * };
 * ```
 */
export interface RegistrationPolicy {
  service: readonly unknown[];
  listed: readonly unknown[];
  reserved: { iss: string; subPrefix: string; typ: string };
}

/** The unprotected labels a statement may carry when registered: receipts (394), which its leaf leaves out. */
const REGISTERED_UNPROTECTED = new Set<CborValue>([SCITT_HEADER.receipts]);

// WF-SCITT-POLICY
/**
 * Check a Signed Statement for registration under `policy`: the statement verifies (as
 * verifyStatement), names its issuer and subject, carries nothing unsigned but receipts, is in
 * low-S form when ECDSA, and was signed by a key the policy lets make its claims. Never throws.
 *
 * @example
 * ```ts
 * const v = checkRegistration(bytes, policy);
 * if (!v.ok) console.log(v.error); // 'not_allowed' for a listed key claiming the service's iss
 * ```
 */
export function checkRegistration(
  bytes: unknown,
  policy: RegistrationPolicy,
  opts: { compute?: SyncVerify; classical?: ClassicalVerify } = {},
): StatementVerdict {
  // The parse and the leaf are verifyStatement's; with no keys it stops at the first rule or at
  // unknown_key, and the rules below run on what it read.
  const first = verifyStatement(bytes, [], opts);
  if (first.error !== 'unknown_key') return first;
  const refuse = (error: StatementVerdict['error'], detail: string): StatementVerdict => ({ ...first, error, detail });
  let c: ReturnType<typeof readCose1>;
  try {
    c = readCose1(bytes as Uint8Array);
  } catch (e) {
    return refuse('malformed', e instanceof CborError || e instanceof TypeError ? e.message : 'not CBOR');
  }
  if (first.sub === undefined) return refuse('not_a_statement', 'a Signed Statement names its subject (CWT claims sub, text)');
  const extra = [...c.unprotected.keys()].find((l) => !REGISTERED_UNPROTECTED.has(l));
  if (extra !== undefined)
    return refuse('unprotected', `unprotected label ${String(extra).slice(0, 20)}: only receipts (394) may be unsigned in a statement`);
  const r = policy.reserved;
  const typ = c.header.get(COSE_HEADER.typ);
  const claimsService = first.iss === r.iss || first.sub.startsWith(r.subPrefix) || typ === r.typ;
  const v = verifyStatement(bytes, claimsService ? policy.service : policy.listed, opts);
  if (!v.ok) {
    if (v.error !== 'unknown_key' || !claimsService) return v;
    const detail = `only the service's own keys may claim its identity (iss ${r.iss}, sub ${r.subPrefix}..., typ ${r.typ})`;
    return { ...v, error: 'not_allowed', detail };
  }
  const alg = scittAlgOfCose(c.header.get(COSE_HEADER.alg));
  if ((alg === 'ES256' || alg === 'ES384') && !ecdsaLowS(alg, c.signature))
    return refuse('malformed', 'an ECDSA signature in high-S form: this log registers the low-S one (s <= n/2), one entry per statement');
  return v;
}
