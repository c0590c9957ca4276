// Building bundles of every kind from secret keys. Deterministic for given keys and inputs unless
// a random source is handed in (Falcon always needs one).
import { toHex, utf8 } from '../encoding/bytes.js';
import { sha256Hex, textSha256Hex } from '../encoding/hash.js';
import { FALCON_1024, sign, type KeyPair, type RandomSource } from '../crypto/algorithms.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { namesFor } from '../names.js';
import { SvcError } from '../errors.js';
import {
  bridgePayload,
  countMessages,
  exportManifest,
  runHash,
  treeHeadText,
  type FramingFlags,
  type TreeHeadBody,
} from '../wire/signed.js';
import type { Obj } from '../lib/json.js';
import { toBridgeKey, toReceiptKey, type BridgeKey } from './keys.js';
import { signFraming, signReceipt, type ReceiptEnvelope } from './receipt.js';
import type { ReceiptKey } from '../wire/keys.js';

export interface IssuerKeys {
  /** ML-DSA-87 receipt key for the kind being issued. */
  receipt: KeyPair;
  /** Optional SLH-DSA-SHA2-256f diversity key. */
  slh?: KeyPair;
  /** Optional model-plane keys (ML-DSA-87 primary, Falcon-1024 co-sign). */
  bridge?: { primary: KeyPair; cosign?: KeyPair };
  random?: RandomSource;
  /** A synchronous backend to sign ML-DSA-87 and SLH-DSA with; noble when absent. */
  crypto?: CryptoBackend;
}

export interface ProofInput {
  answer: string;
  model: string;
  /** Unix seconds of signing. */
  ts: number;
  created?: number;
  /** A question; bound into the receipt unless `bindQuestion` is false. */
  prompt?: string;
  bindQuestion?: boolean;
  /** Framing flags: makes a v:2 receipt with a signed framing disclosure. */
  framing?: FramingFlags;
  governance_flag?: string;
  council_grounded?: boolean;
  excerpt?: { start: number; end: number; quote?: string };
}

export interface ProofBundle extends Obj {
  v: 1;
  kind: string;
  answer: string;
  receipt: ReceiptEnvelope;
  receiptKey: ReceiptKey;
}

/** What signing takes besides the key: the deployment (its contexts), randomness, and where to compute. */
/** The deployment an issued document belongs to; its kinds and signing contexts derive from it. */
export interface ServiceOptions {
  /** Deployment name. Default `svc`. */
  service?: string;
}

export interface SigningOptions {
  /** Deployment name; the signing contexts derive from it. Default `svc`. */
  service?: string;
  /** Hedged signing's randomness; a Falcon-1024 co-signature needs it. */
  random?: RandomSource;
  /** Where ML-DSA-87 and SLH-DSA signatures are computed (default noble). */
  crypto?: CryptoBackend;
}

/**
 * A model-plane attestation of an answer (ML-DSA-87, and a Falcon-1024 co-signature when
 * `keys.cosign` is given, which needs `opts.random`).
 *
 * @example
 * const { attestation, bridgeKeys } = attestBridge({ answer, model: 'm', ts }, { primary, cosign }, { random });
 */
export function attestBridge(
  input: { answer: string; model: string; ts: number },
  keys: { primary: KeyPair; cosign?: KeyPair },
  opts: SigningOptions = {},
): {
  attestation: Obj;
  bridgeKeys: BridgeKey[];
} {
  const { answer, model, ts } = input;
  const { random, crypto } = opts;
  const context = namesFor(opts.service).contexts.bridge;
  const payload = bridgePayload(textHash(answer, 'answer'), model, ts);
  const msg = utf8(payload);
  const pk = toBridgeKey(keys.primary);
  const attestation: Obj = { v: 1, payload, primary: { key_id: pk.key_id, sig: toHex(sign(keys.primary, msg, context, random, crypto)) } };
  const bridgeKeys = [pk];
  if (keys.cosign) {
    if (keys.cosign.alg !== FALCON_1024) throw new TypeError('the co-signature is Falcon-1024');
    if (!random) throw new TypeError('a Falcon-1024 co-signature needs a random source');
    const ck = toBridgeKey(keys.cosign);
    attestation.cosign = { key_id: ck.key_id, sig: toHex(sign(keys.cosign, msg, context, random)) };
    bridgeKeys.push(ck);
  }
  return { attestation, bridgeKeys };
}

/** The hash of answer or prompt text; text with a lone surrogate is refused, never signed. */
function textHash(text: string, what: string): string {
  const h = typeof text === 'string' ? textSha256Hex(text) : null;
  if (h === null) throw new SvcError('invalid_request', `${what} must be a string of well-formed Unicode (no lone surrogates)`);
  return h;
}

export function issueProof(input: ProofInput, keys: IssuerKeys, opts: ServiceOptions = {}): ProofBundle {
  const n = namesFor(opts.service);
  const bind = input.prompt !== undefined && input.bindQuestion !== false;
  const v = bind && input.framing ? 2 : 1;
  let receipt = signReceipt(
    {
      v,
      model: input.model,
      answer_sha256: textHash(input.answer, 'answer'),
      ts: input.ts,
      governance_flag: input.governance_flag,
      council_grounded: input.council_grounded,
      prompt_sha256: bind ? textHash(input.prompt!, 'prompt') : undefined,
    },
    keys.receipt,
    n.contexts.answer,
    { slh: keys.slh, random: keys.random, crypto: keys.crypto },
  );
  if (v === 2) receipt = signFraming(receipt, input.framing!, keys.receipt, n.contexts.framing, keys.random, keys.crypto);
  const bundle: ProofBundle = {
    v: 1,
    kind: n.kinds.proof,
    ...(input.created !== undefined ? { created: input.created } : {}),
    answer: input.answer,
    receipt,
    receiptKey: toReceiptKey(keys.receipt, n.contexts.answer, keys.slh),
  };
  if (input.prompt !== undefined) bundle.prompt = input.prompt;
  if (keys.bridge)
    Object.assign(bundle, attestBridge(input, keys.bridge, { service: n.service, random: keys.random, crypto: keys.crypto }));
  if (input.excerpt) {
    const { start, end } = input.excerpt;
    bundle.excerpt = { start, end, quote: input.excerpt.quote ?? Array.from(input.answer).slice(start, end).join('') };
  }
  return bundle;
}

export function issueTranscript(turns: Obj[], opts: ServiceOptions & { title?: string } = {}): Obj {
  const out: Obj = { kind: namesFor(opts.service).kinds.transcript, turns };
  if (opts.title !== undefined) out.title = opts.title;
  return out;
}

export function issueRun(
  run: Obj,
  meta: { model: string; ts: number; created?: number },
  keys: IssuerKeys,
  opts: ServiceOptions = {},
): Obj {
  const n = namesFor(opts.service);
  const hash = runHash(run);
  if (hash === null) throw new TypeError('run is not canonicalisable JSON');
  const receipt = signReceipt({ v: 1, model: meta.model, answer_sha256: hash, ts: meta.ts }, keys.receipt, n.contexts.autopilot, {
    slh: keys.slh,
    random: keys.random,
    crypto: keys.crypto,
  });
  return {
    v: 1,
    kind: n.kinds.run,
    ...(meta.created !== undefined ? { created: meta.created } : {}),
    run,
    receipt,
    receiptKey: toReceiptKey(keys.receipt, n.contexts.autopilot, keys.slh),
  };
}

export function issueExport(
  conversations: Obj[],
  meta: { model: string; ts: number; created?: number; exported?: string },
  keys: IssuerKeys,
  opts: ServiceOptions = {},
): Obj {
  const n = namesFor(opts.service);
  const messages = countMessages(conversations);
  if (messages === null) throw new TypeError('every conversation needs a messages array');
  const manifest = exportManifest(conversations, messages);
  const receipt = signReceipt(
    { v: 1, model: meta.model, answer_sha256: sha256Hex(manifest), ts: meta.ts },
    keys.receipt,
    n.contexts.export,
    { slh: keys.slh, random: keys.random, crypto: keys.crypto },
  );
  return {
    service: n.service,
    ...(meta.exported !== undefined ? { exported: meta.exported } : {}),
    count: conversations.length,
    conversations,
    signed_manifest: manifest,
    proof: {
      v: 1,
      kind: n.kinds.export,
      context: n.contexts.export,
      ...(meta.created !== undefined ? { created: meta.created } : {}),
      manifest,
      receipt,
      receiptKey: toReceiptKey(keys.receipt, n.contexts.export, keys.slh),
    },
  };
}

export interface SthBundle extends Obj {
  signed: string;
  receipt: ReceiptEnvelope;
  key: ReceiptKey;
}

/**
 * Sign a tree head body (wire-format s.10); timestamp is Unix milliseconds.
 *
 * @example
 * const sth = signTreeHead({ log: 'svc-ledger', tree_size: 1, root_hash, timestamp: Date.now() }, sthKey, { service: 'svc' });
 */
export function signTreeHead(body: TreeHeadBody, key: KeyPair, opts: SigningOptions = {}): SthBundle {
  const { random, crypto } = opts;
  const n = namesFor(opts.service);
  const signed = treeHeadText(body);
  const receipt = signReceipt(
    { v: 1, model: body.log, answer_sha256: sha256Hex(signed), ts: Math.floor(body.timestamp / 1000) },
    key,
    n.contexts.sth,
    { random, crypto },
  );
  return { signed, receipt, key: toReceiptKey(key, n.contexts.sth) };
}

export function consistencyBundle(oldHead: SthBundle, newHead: SthBundle, proof: Uint8Array[], opts: ServiceOptions = {}): Obj {
  return { kind: namesFor(opts.service).kinds.consistency, old: oldHead, new: newHead, proof: proof.map(toHex) };
}
