// Published wording. Honesty is part of the contract: a verdict attests origin and integrity,
// never accuracy; algorithm names are not validations; a record is evidence, not conformity.

/**
 * What every verification answer says: a passing verdict attests origin and integrity, never accuracy.
 *
 * @example
 * ```ts
 * (await verifyBundle(bundle)).disclaimer === VERIFY_DISCLAIMER; // true
 * ```
 */
export const VERIFY_DISCLAIMER =
  'overallOk attests integrity: the embedded signatures verify against the embedded keys. ' +
  'signerRecognized additionally attests origin: the signing key is one this verifier pins. ' +
  'Neither attests that the content is accurate, complete or lawful. Algorithm names denote the ' +
  'public standards the primitives follow, not a FIPS 140 or CMVP validation.';

/**
 * What every record says of itself: evidence of origin and integrity, never accuracy or conformity.
 *
 * @example
 * ```ts
 * buildRecord(bundle, { generated }).disclaimer === RECORD_DISCLAIMER; // true
 * ```
 */
export const RECORD_DISCLAIMER =
  'This AI Provenance Record is factual evidence recomputable from the embedded proof. It attests ' +
  'the origin and integrity of the signed content only, never its accuracy. It is not a ' +
  'declaration of conformity, not a certification, not a legal determination and not a new ' +
  'signature. Algorithm names denote public standards, not FIPS 140 or CMVP validations.';

/**
 * How a reader re-verifies a record, as every record carries it.
 *
 * @example
 * ```ts
 * console.log(RECORD_VERIFY_INSTRUCTIONS);
 * ```
 */
export const RECORD_VERIFY_INSTRUCTIONS =
  'Post this record unchanged to /api/v1/verify, or run `svc verify <file>` offline. The attested ' +
  'summary is recomputed from the embedded proof and must match.';
