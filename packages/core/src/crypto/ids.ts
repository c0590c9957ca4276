// Algorithm names as they appear on the wire (interface.md). Names of public standards, not FIPS 140
// or CMVP validations.
export const ML_DSA_87 = 'ML-DSA-87';
export const SLH_DSA_SHA2_256F = 'SLH-DSA-SHA2-256f';
export const FALCON_1024 = 'Falcon-1024';
export type AlgorithmName = typeof ML_DSA_87 | typeof SLH_DSA_SHA2_256F | typeof FALCON_1024;
