// What checking a SCITT statement or receipt says: one closed union of reasons, and the values a
// verifier computed on the way (leaf entry, index, size, path, the root the log signed).

/**
 * Why a Signed Statement, a Receipt or a Transparent Statement failed.
 *
 * | code                      | when                                                                 |
 * | ------------------------- | -------------------------------------------------------------------- |
 * | `malformed`               | not a tagged COSE_Sign1 in strict CBOR, or a header of the wrong type |
 * | `too_large`               | past the body limit                                                  |
 * | `crit`                    | a `crit` label this verifier does not process                        |
 * | `unsupported_alg`         | an algorithm outside ML-DSA-44/65/87, Ed25519, ES256, ES384          |
 * | `payload_missing`         | a statement with a detached payload (the signature cannot be checked) |
 * | `not_a_statement`         | a COSE_Sign1 that is no Signed Statement: no CWT iss (at registration: and sub), or a typ that is not `+cose` (an answer-receipt envelope, say) |
 * | `unprotected`             | registration: an unprotected member other than receipts (394); unsigned, it would make one statement many entries |
 * | `not_allowed`             | registration: the key that signed may not make these claims (the service's iss, sub namespace or typ by a listed key) |
 * | `unknown_key`             | no trusted key of that algorithm (and kid)                           |
 * | `bad_statement_signature` | the issuer's signature does not verify                               |
 * | `unsupported_vds`         | the receipt's protected vds (395) is not the one this log uses       |
 * | `malformed_proof`         | an inclusion proof that is not the vds's form, or rebuilds no root   |
 * | `leaf_mismatch`           | a CCF proof names another statement than this one                    |
 * | `root_not_signed`         | the log's signature does not cover the root the proof rebuilds       |
 * | `checkpoint_mismatch`     | the signed root is not the trusted checkpoint's at that size         |
 * | `no_receipt`              | a transparent statement with no receipt from a trusted log           |
 *
 * @example
 * ```ts
 * function blame(code: ScittErrorCode): 'issuer' | 'log' | 'bytes' {
 *   return code === 'bad_statement_signature' ? 'issuer' : code === 'malformed' ? 'bytes' : 'log';
 * }
 * ```
 */
export type ScittErrorCode =
  | 'malformed'
  | 'too_large'
  | 'crit'
  | 'unsupported_alg'
  | 'payload_missing'
  | 'not_a_statement'
  | 'unprotected'
  | 'not_allowed'
  | 'unknown_key'
  | 'bad_statement_signature'
  | 'unsupported_vds'
  | 'malformed_proof'
  | 'leaf_mismatch'
  | 'root_not_signed'
  | 'checkpoint_mismatch'
  | 'no_receipt';

/**
 * The verdict on a Signed Statement. `leaf` is its leaf entry (SHA-256 of the statement as
 * registered, hex) whether or not it verifies; `payload` only when it does.
 *
 * @example
 * ```ts
 * const v: StatementVerdict = verifyStatement(bytes, [issuerJwk]);
 * if (v.ok) console.log(v.iss, v.sub);
 * ```
 */
export interface StatementVerdict {
  ok: boolean;
  error?: ScittErrorCode;
  detail?: string;
  leaf: string;
  alg?: string;
  iss?: string;
  sub?: string;
  contentType?: string;
  /** COSE Hash Envelope (label 258): the payload is this algorithm's digest of the content. */
  payloadHashAlg?: number;
  payload?: Uint8Array;
}

/**
 * The verdict on one Receipt. `root` is set only when the log's signature over it verified.
 * `index`, `size` and `path` are what the proof says (vds 1): unsigned. The signature covers the
 * root alone, and a path for leaf 5 of 8 also rebuilds that root as leaf 9 of 11, 17 of 19 ...;
 * `positionSigned` is true only when a trusted checkpoint of that size signs the same root,
 * which binds the size (and so the index).
 *
 * @example
 * ```ts
 * const r: ScittReceiptVerdict = verifyReceipt(receipt, leaf, { keys: [logKey] });
 * if (r.ok) console.log(r.size, r.root);
 * ```
 */
export interface ScittReceiptVerdict {
  ok: boolean;
  error?: ScittErrorCode;
  detail?: string;
  leaf: string;
  vds?: number;
  alg?: string;
  iss?: string;
  index?: number;
  size?: number;
  path?: string[];
  root?: string;
  /** True only when a trusted checkpoint at `size` signs `root`: then index and size are signed too. */
  positionSigned?: boolean;
}

/**
 * The verdict on a Transparent Statement: the statement's, and each receipt's in order.
 *
 * @example
 * ```ts
 * const v = verifyTransparentStatement(bytes, { issuers, logs });
 * if (!v.ok) console.log(v.error, v.statement.error, v.receipts.map((r) => r.error));
 * ```
 */
export interface TransparentVerdict {
  ok: boolean;
  error?: ScittErrorCode;
  detail?: string;
  statement: StatementVerdict;
  receipts: ScittReceiptVerdict[];
}
