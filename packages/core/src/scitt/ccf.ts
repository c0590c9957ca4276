// CCF_LEDGER_SHA256 (vds 2; draft-ietf-scitt-receipts-ccf-profile), the receipts of Microsoft's
// CCF-based SCITT ledger, so that a verifier built on this core can check them beside ours. A proof
// is {1: leaf, 2: path}: leaf = [internal transaction hash (32), internal evidence (text), data
// hash (32, the statement's SHA-256)], hashed as SHA-256(txhash || SHA-256(evidence) || data hash);
// path = [[left?, sibling]...], folded as SHA-256(sibling || acc) when left, else SHA-256(acc || sibling).
import { concatBytes, bytesEqual, utf8 } from '../encoding/bytes.js';
import { sha256 } from '../encoding/hash.js';
import { cborDecode } from '../envelope/cbor.js';

const MAX_PATH = 64;

/**
 * The root a CCF inclusion proof rebuilds for `leaf` (the statement's SHA-256), or why not: a
 * string starting `leaf:` when the proof is about another statement. Throws CborError on bad CBOR.
 *
 * @example
 * ```ts
 * const r = ccfRoot(proofBytes, statementLeaf(statement)); // { root } or a reason
 * ```
 */
export function ccfRoot(proof: Uint8Array, leaf: Uint8Array): { root: Uint8Array } | string {
  const p = cborDecode(proof);
  if (!(p instanceof Map) || p.size !== 2) return 'a CCF proof is a map of leaf (1) and path (2)';
  const l = p.get(1);
  const path = p.get(2);
  if (!Array.isArray(l) || l.length !== 3 || !Array.isArray(path)) return 'a CCF leaf is [txhash, evidence, data hash]; the path an array';
  const [tx, evidence, data] = l;
  if (
    !(tx instanceof Uint8Array) ||
    tx.length !== 32 ||
    typeof evidence !== 'string' ||
    !(data instanceof Uint8Array) ||
    data.length !== 32
  )
    return 'a CCF leaf is [32 bytes, text, 32 bytes]';
  if (!bytesEqual(data, leaf)) return "leaf: the CCF proof's data hash is not this statement's";
  if (path.length > MAX_PATH) return 'a CCF path of at most 64 steps';
  let acc = sha256(concatBytes(tx, sha256(utf8(evidence)), data));
  for (const step of path) {
    if (
      !Array.isArray(step) ||
      step.length !== 2 ||
      typeof step[0] !== 'boolean' ||
      !(step[1] instanceof Uint8Array) ||
      step[1].length !== 32
    )
      return 'a CCF path step is [bool, 32 bytes]';
    acc = step[0] ? sha256(concatBytes(step[1], acc)) : sha256(concatBytes(acc, step[1]));
  }
  return { root: acc };
}
