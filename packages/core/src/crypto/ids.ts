// Algorithm names as they appear on the wire (interface.md). Names of public standards, not FIPS 140
// or CMVP validations.
/**
 * The algorithm name of FIPS 204 ML-DSA-87, as the wire format writes it.
 *
 * @example
 * ```ts
 * const key = keygen(ML_DSA_87, seed32);
 * ```
 */
export const ML_DSA_87 = 'ML-DSA-87';
/**
 * The algorithm name of FIPS 205 SLH-DSA-SHA2-256f, as the wire format writes it.
 *
 * @example
 * ```ts
 * const slh = keygen(SLH_DSA_SHA2_256F, seed96);
 * ```
 */
export const SLH_DSA_SHA2_256F = 'SLH-DSA-SHA2-256f';
/**
 * The algorithm name of round-3 Falcon-1024 (model-plane co-signatures only).
 *
 * @example
 * ```ts
 * const cosign = keygen(FALCON_1024, seed48);
 * ```
 */
export const FALCON_1024 = 'Falcon-1024';
/**
 * Every signature algorithm the wire format names.
 *
 * @example
 * ```ts
 * const names: AlgorithmName[] = [ML_DSA_87, SLH_DSA_SHA2_256F, FALCON_1024];
 * ```
 */
export type AlgorithmName = typeof ML_DSA_87 | typeof SLH_DSA_SHA2_256F | typeof FALCON_1024;

/**
 * A key pair of one algorithm: public and secret key bytes.
 *
 * @example
 * ```ts
 * const key: KeyPair = keygen(ML_DSA_87, seed32);
 * console.log(key.alg, key.publicKey.length); // ML-DSA-87 2592
 * ```
 */
export interface KeyPair {
  alg: AlgorithmName;
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}
