// The exact bytes each kind signs, defined once: the issuing side builds them to sign, the verifying
// side rebuilds them to check (wire-format s.3-s.10). Nothing here verifies or signs.
import { toHex, utf8 } from '../encoding/bytes.js';
import { sha256, sha256Hex } from '../encoding/hash.js';
import { canonicalize, tryCanonicalize } from '../encoding/jcs.js';
import { isObj, omit, type Obj } from '../lib/json.js';

/** Members that sit beside the signature and are not part of the signed receipt core. */
export const UNSIGNED_RECEIPT_MEMBERS = ['sig', 'framing', 'slh'] as const;

/** The exact bytes a receipt signature covers (wire-format s.3); null when not canonicalisable. */
export function receiptMessage(receipt: Obj): Uint8Array | null {
  const text = tryCanonicalize(omit(receipt, UNSIGNED_RECEIPT_MEMBERS));
  return text === null ? null : utf8(text);
}

export interface FramingFlags {
  persona: 0 | 1;
  voice: 0 | 1;
  attachment: 0 | 1;
  history_turns: number;
}

/** The bytes the framing signature covers; null if the receipt fields are not usable. */
export function framingMessage(receipt: Obj, flags: FramingFlags): Uint8Array | null {
  const text = tryCanonicalize({
    answer_sha256: receipt.answer_sha256,
    prompt_sha256: receipt.prompt_sha256,
    ts: receipt.ts,
    persona: flags.persona,
    voice: flags.voice,
    attachment: flags.attachment,
    history_turns: flags.history_turns,
  });
  return text === null ? null : utf8(text);
}

/** A run's signed subject: H(JCS(run)) (wire-format s.8); null when not canonicalisable. */
export function runHash(run: unknown): string | null {
  const text = tryCanonicalize(run);
  return text === null ? null : sha256Hex(text);
}

/** The message count an export manifest states; null when a conversation is malformed. */
export function countMessages(conversations: unknown[]): number | null {
  let n = 0;
  for (const c of conversations) {
    if (!isObj(c) || !Array.isArray(c.messages)) return null;
    n += c.messages.length;
  }
  return n;
}

/** The text a model-plane attestation signs (wire-format s.6): JCS({answer_sha256, model, ts}). */
export function bridgePayload(answerSha256: string, model: string, ts: number): string {
  return canonicalize({ answer_sha256: answerSha256, model, ts });
}

/** An export manifest (wire-format s.9): JCS of the payload hash and the two counts. */
export function exportManifest(conversations: unknown[], messages: number): string {
  return canonicalize({ payload_sha256: sha256Hex(canonicalize(conversations)), conversations: conversations.length, messages });
}

export interface TreeHeadBody {
  log: string;
  tree_size: number;
  root_hash: string;
  timestamp: number;
}

/** The `signed` text of a tree head: JCS of exactly its four members (wire-format s.10). */
export function treeHeadText(body: TreeHeadBody): string {
  return canonicalize({ log: body.log, tree_size: body.tree_size, root_hash: body.root_hash, timestamp: body.timestamp });
}

/** Model-plane key id: hex of the first 8 bytes of SHA-256 of the raw public key. */
export function bridgeKeyId(publicKey: Uint8Array): string {
  return toHex(sha256(publicKey).subarray(0, 8));
}

/** key_id = hex(SHA-256(raw public key)) (wire-format s.3). */
export function receiptKeyId(publicKey: Uint8Array): string {
  return sha256Hex(publicKey);
}
