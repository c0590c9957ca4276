// Shared test material, loaded through the bundler so the same tests run in Node and in a browser.
// A missing file fails the import, and every consumer asserts its case count is non-zero.
import rfc6962 from '../../../test-vectors/external/rfc6962.json';
import mtcSubtrees from '../../../test-vectors/external/mtc-subtrees.json';
import mldsaFile from '../../../test-vectors/external/acvp/ml-dsa-87-sigver.json';
import slh from '../../../test-vectors/external/acvp/slh-dsa-sha2-256f-sigver.json';
import es6numbers from '../../../test-vectors/external/jcs/es6testfile-first1000.txt?raw';

/** NIST ACVP ML-DSA sigVer (test-vectors/external/acvp): the members the tests read. */
export interface AcvpMlDsaSigVer {
  prompt: {
    testGroups: {
      tgId: number;
      parameterSet: string;
      signatureInterface: string;
      preHash: string;
      tests: { tcId: number; pk: string; message: string; context?: string; signature: string }[];
    }[];
  };
  expectedResults: { testGroups: { tests: { tcId: number; testPassed: boolean | string }[] }[] };
  reasons: Record<string, string>;
}
const mldsa = mldsaFile as unknown as AcvpMlDsaSigVer;

const jcsInputs = import.meta.glob('../../../test-vectors/external/jcs/input/*.json', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;
const jcsOutputs = import.meta.glob('../../../test-vectors/external/jcs/output/*.json', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;
const ourVectors = import.meta.glob('../../../test-vectors/*.json', { import: 'default', eager: true }) as Record<string, unknown>;

/** Documents made by earlier versions, kept unchanged (test-vectors/kept, never regenerated): name -> the file's text. */
const keptVectors = import.meta.glob('../../../test-vectors/kept/*.json', { query: '?raw', import: 'default', eager: true }) as Record<
  string,
  string
>;

const tlogVectors = import.meta.glob('../../../test-vectors/tlog/*.json', { import: 'default', eager: true }) as Record<string, unknown>;

export { rfc6962, mtcSubtrees, mldsa, slh, es6numbers, jcsInputs, jcsOutputs, ourVectors, keptVectors, tlogVectors };

/** A glob's files by name, without folder or `.json`. */
const byName = <T>(files: Record<string, unknown>): Record<string, T> =>
  Object.fromEntries(
    Object.entries(files).map(([path, v]) => [
      path
        .split('/')
        .pop()!
        .replace(/\.json$/, ''),
      v as T,
    ]),
  );

/** RFC 9964's examples: name (e.g. `ML_DSA_87.jose`) -> the example object. */
const rfc9964 = byName<Record<string, unknown>>(
  import.meta.glob('../../../test-vectors/external/rfc9964/*.json', { import: 'default', eager: true }),
);
export { rfc9964 };

/** The scitt-cose vectors (test-vectors/external/scitt-cose, binary files as hex). */
export { default as scittCose } from '../../../test-vectors/external/scitt-cose.json';

/** Our SCITT vectors (test-vectors/scitt, wire-format s.13). */
export { default as scittVectors } from '../../../test-vectors/scitt/scitt.json';

/**
 * Wycheproof (C2SP/wycheproof, Apache-2.0): ML-DSA-44/65/87 verify, Ed25519, ECDSA P-256 with
 * SHA-256 in IEEE P1363 form (r||s, as COSE writes it).
 */
export { default as wycheproofMlDsa44 } from '../../../test-vectors/external/wycheproof/mldsa_44_verify_test.json';
export { default as wycheproofMlDsa65 } from '../../../test-vectors/external/wycheproof/mldsa_65_verify_test.json';
export { default as wycheproofMlDsa87 } from '../../../test-vectors/external/wycheproof/mldsa_87_verify_test.json';
export { default as wycheproofEd25519 } from '../../../test-vectors/external/wycheproof/ed25519_test.json';
export { default as wycheproofP256 } from '../../../test-vectors/external/wycheproof/ecdsa_secp256r1_sha256_p1363_test.json';

/** cose-wg/Examples (public domain): COSE_Sign1 examples and the sign1 pass/fail tests, by file name. */
export const coseWg = byName<CoseWgExample>(
  import.meta.glob('../../../test-vectors/external/cose-wg/*.json', { import: 'default', eager: true }),
);
export interface CoseWgExample {
  title: string;
  fail?: boolean;
  input: { plaintext: string; sign0: { key: Record<string, string>; alg: string; external?: string }; failures?: Record<string, unknown> };
  intermediates?: { ToBeSign_hex?: string };
  output: { cbor: string };
}

/** RFC 8949 Appendix A (cbor/test-vectors) and Appendix F.1's not-well-formed items. */
export { default as cborAppendixA } from '../../../test-vectors/external/cbor/appendix_a.json';
export { default as cborNotWellFormed } from '../../../test-vectors/external/cbor/rfc8949-f1.json';
