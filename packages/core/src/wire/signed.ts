// The exact bytes each kind signs, defined once: the issuing side builds them to sign, the verifying
// side rebuilds them to check (wire-format s.3-s.10). Nothing here verifies or signs.
import { toHex, utf8 } from '../encoding/bytes.js';
import { sha256, sha256Hex } from '../encoding/hash.js';
import { canonicalize, tryCanonicalize } from '../encoding/jcs.js';
import { isObj, omit, type JsonObject } from '../lib/json.js';

/**
 * Members that sit beside the signature and are not part of the signed receipt core: the other
 * signatures over it (framing, diversity) and its JWS/COSE envelopes, which sign that core again.
 *
 * @example
 * ```ts
 * const { sig, framing, slh, envelopes, ...signed } = receipt; // UNSIGNED_RECEIPT_MEMBERS: what the receipt signature does not cover
 * ```
 */
export const UNSIGNED_RECEIPT_MEMBERS = ['sig', 'framing', 'slh', 'envelopes'] as const;

/**
 * The exact bytes a receipt signature covers (wire-format s.3), and the payload of its envelopes;
 * null when not canonicalisable.
 *
 * @example
 * ```ts
 * const msg = receiptMessage(bundle.receipt); // canonical JSON of the receipt without sig, framing and slh
 * verifyMlDsa87(publicKey, msg!, fromHex(bundle.receipt.sig)!, 'svc-provenance-v1');
 * ```
 */
export function receiptMessage(receipt: JsonObject): Uint8Array | null {
  const text = tryCanonicalize(omit(receipt, UNSIGNED_RECEIPT_MEMBERS));
  return text === null ? null : utf8(text);
}

/**
 * The framing disclosure of a v:2 receipt: persona, voice, attachment and history turns the council read.
 *
 * @example
 * ```ts
 * const flags: FramingFlags = { persona: 0, voice: 1, attachment: 0, history_turns: 4 };
 * ```
 */
export interface FramingFlags {
  persona: 0 | 1;
  voice: 0 | 1;
  attachment: 0 | 1;
  history_turns: number;
}

/**
 * The bytes the framing signature covers; null if the receipt fields are not usable.
 *
 * @example
 * ```ts
 * const msg = framingMessage(receipt, { persona: 0, voice: 0, attachment: 0, history_turns: 2 });
 * ```
 */
export function framingMessage(receipt: JsonObject, flags: FramingFlags): Uint8Array | null {
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

/**
 * The signed digest of what a request put before the model beyond its messages (wire-format s.15):
 * H(JCS(request)); null when not canonicalisable.
 *
 * @example
 * ```ts
 * requestSha256({ tools: [{ type: 'function', function: { name: 'get_weather' } }] }) === bundle.receipt.request_sha256;
 * ```
 */
export function requestSha256(request: unknown): string | null {
  if (!isObj(request)) return null;
  const text = tryCanonicalize(request);
  return text === null ? null : sha256Hex(text);
}

/**
 * A run's signed subject: H(JCS(run)) (wire-format s.8); null when not canonicalisable.
 *
 * @example
 * ```ts
 * runHash(run) === bundle.receipt.answer_sha256; // what a run receipt signs
 * ```
 */
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

/**
 * The text a model-plane attestation signs (wire-format s.6): JCS({answer_sha256, model, ts}).
 *
 * @example
 * ```ts
 * const payload = bridgePayload(textSha256Hex(answer)!, 'm-1', 1767225600);
 * ```
 */
export function bridgePayload(answerSha256: string, model: string, ts: number): string {
  return canonicalize({ answer_sha256: answerSha256, model, ts });
}

/**
 * An export manifest (wire-format s.9): JCS of the payload hash and the two counts.
 *
 * @example
 * ```ts
 * const manifest = exportManifest(conversations, 12); // canonical JSON the export receipt signs
 * ```
 */
export function exportManifest(conversations: unknown[], messages: number): string {
  return canonicalize({ payload_sha256: sha256Hex(canonicalize(conversations)), conversations: conversations.length, messages });
}

/**
 * The signed body of a tree head: log name, size, hex root and time in Unix milliseconds.
 *
 * @example
 * ```ts
 * const body: TreeHeadBody = { log: 'svc-ledger', tree_size: 8, root_hash: toHex(root), timestamp: Date.now() };
 * ```
 */
export interface TreeHeadBody {
  log: string;
  tree_size: number;
  root_hash: string;
  timestamp: number;
}

/**
 * The `signed` text of a tree head: JCS of exactly its four members (wire-format s.10).
 *
 * @example
 * ```ts
 * treeHeadText({ log: 'svc-ledger', tree_size: 1, root_hash: '00'.repeat(32), timestamp: 0 }); // its canonical JSON
 * ```
 */
export function treeHeadText(body: TreeHeadBody): string {
  return canonicalize({ log: body.log, tree_size: body.tree_size, root_hash: body.root_hash, timestamp: body.timestamp });
}

/**
 * Model-plane key id: hex of the first 8 bytes of SHA-256 of the raw public key.
 *
 * @example
 * ```ts
 * const id = bridgeKeyId(K.bridgePrimary.publicKey);
 * ```
 */
export function bridgeKeyId(publicKey: Uint8Array): string {
  return toHex(sha256(publicKey).subarray(0, 8));
}

/**
 * key_id = hex(SHA-256(raw public key)) (wire-format s.3).
 *
 * @example
 * ```ts
 * receiptKeyId(K.answer.publicKey) === bundle.receipt.key_id; // true: the hex SHA-256 of the public key
 * ```
 */
export function receiptKeyId(publicKey: Uint8Array): string {
  return sha256Hex(publicKey);
}
