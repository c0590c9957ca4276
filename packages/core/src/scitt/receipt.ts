// COSE Receipts (RFC 9942): a COSE_Sign1 by the log whose detached payload is the root an
// inclusion proof rebuilds. Protected: alg, kid, vds (395), CWT claims; unprotected: the proofs
// (396, label -1: bstr-wrapped proofs). vds 1 is RFC9162_SHA256 ([tree_size, leaf_index, path]);
// vds 2 is CCF_LEDGER_SHA256 (ccf.ts). The vds is read from the protected header only, and must be
// the one the trusted log uses: a receipt cannot choose how it is read.
import { toHex } from '../encoding/bytes.js';
import { coseBytes, keyArray } from '../envelope/forms.js';
import { MAX_BODY_BYTES } from '../limits.js';
import { leafHash } from '../merkle/hash.js';
import { rootFromInclusionProof } from '../merkle/verify.js';
import type { SyncVerify } from '../crypto/algorithms.js';
import { cborDecode, cborEncode, CborError, Tagged, type CborValue } from '../envelope/cbor.js';
import { COSE_HEADER, readCose1, sigStructure } from '../envelope/cose.js';
import { coseKeyThumbprint, ENVELOPE_ALGS } from '../envelope/keys.js';
import type { EnvelopeSigner } from '../envelope/signers.js';
import { ccfRoot } from './ccf.js';
import { scittAlgOfCose, scittVerify, type ClassicalVerify } from './keys.js';
import { candidateKeys, SCITT_HEADER, unknownCrit } from './statement.js';
import type { ScittReceiptVerdict, ScittErrorCode } from './verdict.js';

/**
 * Verifiable data structures (RFC 9942 s.9 registry): 1 = RFC9162_SHA256, 2 = CCF_LEDGER_SHA256.
 *
 * @example
 * ```ts
 * const log: ScittLog = { keys, vds: VDS.RFC9162_SHA256 };
 * ```
 */
export const VDS = { RFC9162_SHA256: 1, CCF_LEDGER_SHA256: 2 } as const;
const INCLUSION = -1;
const MAX_PATH = 64;
const MAX_PROOFS = 8;
const COSE_SIGN1_TAG = 18;
const RECEIPT_UNDERSTOOD = new Set<CborValue>([COSE_HEADER.alg, COSE_HEADER.kid, COSE_HEADER.cwtClaims, SCITT_HEADER.vds]);

/**
 * A log a verifier trusts: its keys, the vds its receipts use (1 unless said), and optionally a
 * checkpoint (size and root, from a note verified under a witness policy) the receipt must match.
 *
 * @example
 * ```ts
 * const log: ScittLog = { keys: [{ alg: 'ML-DSA-44', publicKey }], checkpoint: { size: 8, root } };
 * ```
 */
export interface ScittLog {
  keys: readonly unknown[];
  vds?: number;
  checkpoint?: { size: number; root: Uint8Array };
}

/**
 * What a log signs in a receipt: the proof of one leaf in one tree head.
 *
 * @example
 * ```ts
 * const r = makeReceipt({ index: 2, size: 8, path, root, iss: 'svc-ledger.invalid/ab12' }, signer);
 * ```
 */
export interface ReceiptContent {
  index: number;
  size: number;
  path: readonly Uint8Array[];
  root: Uint8Array;
  /** CWT iss: the log's origin. */
  iss: string;
}

/**
 * Sign an RFC 9942 receipt (vds 1). Ed25519 is written as alg -8 (EdDSA), the label SCITT
 * verifiers read today; kid is the key's RFC 9679 thumbprint.
 *
 * @example
 * ```ts
 * const receipt = makeReceipt(content, { alg: 'ML-DSA-44', publicKey, sign: (message) => logKeySign(message) });
 * ```
 */
export function makeReceipt(r: ReceiptContent, signer: EnvelopeSigner): Uint8Array {
  const protectedBytes = cborEncode(receiptHeader(signer, r.iss));
  return receiptBytes(protectedBytes, r, signer.sign(sigStructure(protectedBytes, r.root)));
}

// WF-SCITT: the one definition of a receipt's bytes, whichever maker signs it.
function receiptHeader(signer: EnvelopeSigner, iss: string): Map<number, CborValue> {
  return new Map<number, CborValue>([
    [COSE_HEADER.alg, signer.alg === 'Ed25519' ? -8 : ENVELOPE_ALGS[signer.alg].cose],
    [COSE_HEADER.kid, coseKeyThumbprint(signer.alg, signer.publicKey)],
    [COSE_HEADER.cwtClaims, new Map<number, CborValue>([[1, iss]])],
    [SCITT_HEADER.vds, VDS.RFC9162_SHA256],
  ]);
}

function receiptBytes(protectedBytes: Uint8Array, r: Omit<ReceiptContent, 'iss'>, signature: Uint8Array): Uint8Array {
  const proof = cborEncode([r.size, r.index, [...r.path]]);
  const unprotected = new Map<number, CborValue>([[SCITT_HEADER.vdp, new Map<number, CborValue>([[INCLUSION, [proof]]])]]);
  return cborEncode(new Tagged(COSE_SIGN1_TAG, [protectedBytes, unprotected, null, signature]));
}

/**
 * A receipt maker for one log key and origin: the protected header is encoded once, and the
 * signature, which covers only that header and the root (the leaf and the path ride unprotected),
 * is made once per root. Each receipt is byte for byte what makeReceipt gives.
 *
 * @example
 * ```ts
 * const make = receiptMaker(logKeySigner(key), 'log.example/1');
 * const a = make({ index: 0, size: 2, path, root }); // signs
 * const b = make({ index: 1, size: 2, path: other, root }); // same root: the signature is reused
 * ```
 */
export function receiptMaker(signer: EnvelopeSigner, iss: string): (r: Omit<ReceiptContent, 'iss'>) => Uint8Array {
  const protectedBytes = cborEncode(receiptHeader(signer, iss));
  const signed = new Map<string, Uint8Array>();
  return (r) => {
    const key = toHex(r.root);
    let signature = signed.get(key);
    if (!signature) {
      signature = signer.sign(sigStructure(protectedBytes, r.root));
      // A few recent roots: registrations straddle at most a head or two.
      if (signed.size >= 16) signed.delete(signed.keys().next().value!);
      signed.set(key, signature);
    }
    return receiptBytes(protectedBytes, r, signature);
  };
}

type Rebuilt = { root: Uint8Array; index?: number; size?: number; path?: string[] };

/** vds 1: [tree_size, leaf_index, [hash...]], strictly. */
function rfc9162Root(proof: Uint8Array, leaf: Uint8Array): Rebuilt | string {
  const p = cborDecode(proof);
  if (!Array.isArray(p) || p.length !== 3) return 'an RFC 9162 proof is [tree_size, leaf_index, path]';
  const [size, index, path] = p;
  if (!Number.isSafeInteger(size) || !Number.isSafeInteger(index) || !Array.isArray(path))
    return 'tree_size and leaf_index are integers, path an array';
  if (path.length > MAX_PATH || !path.every((h) => h instanceof Uint8Array && h.length === 32))
    return 'a path of at most 64 32-byte hashes';
  const hashes = path as Uint8Array[];
  const out = { index: index as number, size: size as number, path: hashes.map(toHex) };
  const root = rootFromInclusionProof(out.index, out.size, leafHash(leaf), hashes);
  return root ? { root, ...out } : `the path does not fit leaf ${out.index} of a tree of ${out.size}`;
}

// WF-SCITT
const refuse = (v: Omit<ScittReceiptVerdict, 'ok'>, error: ScittErrorCode, detail: string): ScittReceiptVerdict => ({
  ...v,
  ok: false,
  error,
  detail,
});

/**
 * Verify an RFC 9942 receipt for a leaf entry (32 bytes: the statement's SHA-256) against a trusted
 * log. Never throws.
 *
 * @example
 * ```ts
 * const r = verifyReceipt(receiptBytes, statementLeaf(statement), { keys: [logJwk] });
 * ```
 */
export function verifyReceipt(
  bytes: unknown,
  leaf: Uint8Array,
  log: ScittLog,
  opts: { compute?: SyncVerify; classical?: ClassicalVerify } = {},
): ScittReceiptVerdict {
  coseBytes(bytes, 'the receipt');
  keyArray(log.keys, "the log's keys");
  const base: Omit<ScittReceiptVerdict, 'ok'> = { leaf: leaf instanceof Uint8Array ? toHex(leaf) : '' };
  if (!(bytes instanceof Uint8Array)) return refuse(base, 'malformed', 'a receipt is bytes');
  if (bytes.length > MAX_BODY_BYTES) return refuse(base, 'too_large', 'a receipt over the body limit');
  if (!(leaf instanceof Uint8Array) || leaf.length !== 32) return refuse(base, 'malformed', 'the leaf entry is 32 bytes');
  let c: ReturnType<typeof readCose1>;
  try {
    c = readCose1(bytes);
  } catch (e) {
    return refuse(base, 'malformed', e instanceof CborError || e instanceof TypeError ? e.message : 'not CBOR');
  }
  const h = c.header;
  const claims = h.get(COSE_HEADER.cwtClaims);
  const iss = claims instanceof Map ? claims.get(1) : undefined;
  const v: Omit<ScittReceiptVerdict, 'ok'> = { ...base, ...(typeof iss === 'string' ? { iss } : {}) };
  const vds = h.get(SCITT_HEADER.vds);
  if (typeof vds === 'number') v.vds = vds;
  const expected = log.vds ?? VDS.RFC9162_SHA256;
  if (vds !== expected || (vds !== VDS.RFC9162_SHA256 && vds !== VDS.CCF_LEDGER_SHA256))
    return refuse(v, 'unsupported_vds', `this log's receipts are vds ${expected}; the protected header says ${String(vds).slice(0, 20)}`);
  const crit = unknownCrit(h, RECEIPT_UNDERSTOOD);
  if (crit) return refuse(v, 'crit', crit);
  if (c.payload !== null) return refuse(v, 'malformed', "a receipt's payload is detached (the root)");
  const alg = scittAlgOfCose(h.get(COSE_HEADER.alg));
  if (!alg) return refuse(v, 'unsupported_alg', `alg ${String(h.get(COSE_HEADER.alg)).slice(0, 20)} is not accepted`);
  v.alg = alg;
  const vdp = c.unprotected.get(SCITT_HEADER.vdp);
  const proofs = vdp instanceof Map ? vdp.get(INCLUSION) : undefined;
  if (!Array.isArray(proofs) || proofs.length === 0 || proofs.length > MAX_PROOFS || !proofs.every((p) => p instanceof Uint8Array))
    return refuse(v, 'malformed_proof', 'no inclusion proofs (396, label -1: 1 to 8 byte strings)');
  // Every proof must rebuild the same root: the one signature covers one root.
  let rebuilt: Rebuilt | null = null;
  for (const p of proofs as Uint8Array[]) {
    let r: Rebuilt | string;
    try {
      r = vds === VDS.RFC9162_SHA256 ? rfc9162Root(p, leaf) : ccfRoot(p, leaf);
    } catch (e) {
      return refuse(v, 'malformed_proof', e instanceof CborError ? `proof: ${e.message}` : 'proof is not CBOR');
    }
    if (typeof r === 'string') return refuse(v, r.startsWith('leaf:') ? 'leaf_mismatch' : 'malformed_proof', r.replace(/^leaf: /, ''));
    if (rebuilt && toHex(rebuilt.root) !== toHex(r.root)) return refuse(v, 'malformed_proof', 'the proofs rebuild different roots');
    rebuilt ??= r;
    if (r.index !== undefined) Object.assign(v, { index: r.index, size: r.size, path: r.path });
  }
  const keys = candidateKeys(log.keys, alg, h.get(COSE_HEADER.kid));
  if (keys.length === 0) return refuse(v, 'unknown_key', `no ${alg} key of this log`);
  const tbs = sigStructure(c.protectedBytes, rebuilt!.root);
  if (!keys.some((k) => scittVerify(alg, k.publicKey, tbs, c.signature, opts.compute, opts.classical)))
    return refuse(
      v,
      'root_not_signed',
      "the log's signature does not cover the root this proof rebuilds (a changed path, leaf or signature)",
    );
  const root = toHex(rebuilt!.root);
  const cp = log.checkpoint;
  if (cp && (cp.size !== v.size || toHex(cp.root) !== root))
    return refuse(v, 'checkpoint_mismatch', `the receipt's head (${v.size}) is not the trusted checkpoint (${cp.size}): another history`);
  return { ...v, ok: true, root, positionSigned: cp !== undefined };
}
