// Building bundles of every kind from secret keys. Deterministic for given keys and inputs unless
// a random source is handed in (Falcon always needs one).
import { toHex, utf8 } from '../encoding/bytes.js';
import { sha256Hex, textSha256Hex } from '../encoding/hash.js';
import { FALCON_1024, sign, type KeyPair, type RandomSource } from '../crypto/algorithms.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { namesFor, type Names } from '../names.js';
import { SvcError } from '../errors.js';
import {
  bridgePayload,
  countMessages,
  exportManifest,
  requestSha256,
  runHash,
  treeHeadText,
  type FramingFlags,
  type TreeHeadBody,
} from '../wire/signed.js';
import type { JsonObject } from '../lib/json.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/resources.js';
import { MESSAGE_FORM, readMessage } from '../wire/message.js';
import { toBridgeKey, toReceiptKey } from './keys.js';
import type { BridgeKey } from '../wire/keys.js';
import { signFraming, signReceipt, type ReceiptEnvelope, type SignOptions } from './receipt.js';
import type { EnvelopeMaker } from '../envelope/checker.js';
import type { ReceiptKey } from '../wire/keys.js';

/** signReceipt's options for an issuer's keys: diversity, randomness, backend and envelopes. */
function receiptOptions(keys: IssuerKeys, n: Names): SignOptions {
  return {
    slh: keys.slh,
    random: keys.random,
    crypto: keys.crypto,
    ...(keys.envelopes ? { envelopes: { maker: keys.envelopes, names: n } } : {}),
  };
}

/** The Ed25519 public key a bundle's key object names when the envelopes carry its signature. */
function envelopeEd25519(keys: IssuerKeys): Uint8Array | undefined {
  return keys.envelopes?.ed25519PublicKey;
}

/**
 * The keys an issuing function signs with: the kind's receipt key, and the optional diversity and model-plane keys.
 *
 * @example
 * ```ts
 * const K = testKeys('example');
 * const keys: IssuerKeys = { receipt: K.answer, slh: K.slh, bridge: { primary: K.bridgePrimary } };
 * ```
 */
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
  /** JWS and/or COSE envelopes beside each receipt: `envelopeMaker(...)` of @svc/core/envelope (wire-format s.12). */
  envelopes?: EnvelopeMaker;
}

/**
 * What issueProof signs: the answer, model and time, and optionally a question, framing flags and a pinned excerpt.
 *
 * @example
 * ```ts
 * const input: ProofInput = { answer: 'Paris.', model: 'm-1', ts: 1767225600, prompt: 'Capital of France?' };
 * ```
 */
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
  /** `message`: `answer` is the message form's text (messageText), and the receipt says so. */
  answerForm?: 'message';
  /**
   * The request's members beyond its messages that the model read (tools, response_format...):
   * signed by digest, carried in the bundle, and the question then bound as current-message.
   */
  request?: JsonObject;
}

/**
 * A signed answer as issueProof makes it (more members appear with the optional layers).
 *
 * @example
 * ```ts
 * const bundle: ProofBundle = issueProof({ answer: 'Paris.', model: 'm-1', ts: 1767225600 }, { receipt: K.answer });
 * bundle.receipt.answer_sha256 === textSha256Hex(bundle.answer); // true
 * ```
 */
export type ProofBundle = Static<typeof S.ProofBundle> & { v: 1; receipt: ReceiptEnvelope; receiptKey: ReceiptKey };

/** What signing takes besides the key: the deployment (its contexts), randomness, and where to compute. */
/**
 * The deployment an issued document belongs to; its kinds and signing contexts derive from it.
 *
 * @example
 * ```ts
 * issueProof(input, { receipt: K.answer }, { service: 'acme' }); // kind 'acme-proof', context 'acme-provenance-v1'
 * ```
 */
export interface ServiceOptions {
  /** Deployment name. Default `svc`. */
  service?: string;
}

/**
 * What signing takes besides the key: the deployment (its contexts), randomness, and where to compute.
 *
 * @example
 * ```ts
 * const opts: SigningOptions = { service: 'svc', random: (n) => crypto.getRandomValues(new Uint8Array(n)) };
 * signTreeHead(body, K.sth, opts);
 * ```
 */
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
  attestation: JsonObject;
  bridgeKeys: BridgeKey[];
} {
  const { answer, model, ts } = input;
  const { random, crypto } = opts;
  const context = namesFor(opts.service).contexts.bridge;
  const payload = bridgePayload(textHash(answer, 'answer'), model, ts);
  const msg = utf8(payload);
  const pk = toBridgeKey(keys.primary);
  const attestation: JsonObject = {
    v: 1,
    payload,
    primary: { key_id: pk.key_id, sig: toHex(sign(keys.primary, msg, context, random, crypto)) },
  };
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

/**
 * Sign an answer: a ProofBundle whose receipt signs the answer's SHA-256 under the answer context (with a bound question, framing, diversity and model-plane layers when asked).
 *
 * @example
 * ```ts
 * const K = testKeys('example');
 * const bundle = issueProof({ answer: 'Paris.', model: 'm-1', ts: 1767225600, prompt: 'Capital of France?' }, { receipt: K.answer });
 * (await verifyBundle(bundle, { trustedKeys: K.trustedKeys })).signerRecognized; // true
 * ```
 */
export function issueProof(input: ProofInput, keys: IssuerKeys, opts: ServiceOptions = {}): ProofBundle {
  const n = namesFor(opts.service);
  const bind = input.prompt !== undefined && input.bindQuestion !== false;
  if (input.answerForm !== undefined && (input.answerForm !== MESSAGE_FORM || readMessage(input.answer) === null))
    throw new SvcError('invalid_request', 'a message answer must be the canonical text of a message (wire-format s.15)');
  // A disclosed request binds the question as current-message: v:2 with framing, so a verifier
  // that predates the disclosure never reads the question as the entire input.
  const request = bind && input.request !== undefined ? requestSha256(input.request) : undefined;
  if (request === null) throw new SvcError('invalid_request', 'request must be a canonicalisable JSON object');
  const framing = input.framing ?? (request ? { persona: 0, voice: 0, attachment: 0, history_turns: 0 } : undefined);
  const v = bind && framing ? 2 : 1;
  let receipt = signReceipt(
    {
      v,
      model: input.model,
      answer_sha256: textHash(input.answer, 'answer'),
      ts: input.ts,
      governance_flag: input.governance_flag,
      council_grounded: input.council_grounded,
      prompt_sha256: bind ? textHash(input.prompt!, 'prompt') : undefined,
      answer_form: input.answerForm,
      request_sha256: request,
    },
    keys.receipt,
    n.contexts.answer,
    receiptOptions(keys, n),
  );
  if (v === 2) receipt = signFraming(receipt, framing!, keys.receipt, n.contexts.framing, keys.random, keys.crypto);
  const bundle: ProofBundle = {
    v: 1,
    kind: n.kinds.proof,
    ...(input.created !== undefined ? { created: input.created } : {}),
    answer: input.answer,
    receipt,
    receiptKey: toReceiptKey(keys.receipt, n.contexts.answer, keys.slh, envelopeEd25519(keys)),
  };
  if (input.prompt !== undefined) bundle.prompt = input.prompt;
  if (request) bundle.request = input.request;
  if (keys.bridge)
    Object.assign(bundle, attestBridge(input, keys.bridge, { service: n.service, random: keys.random, crypto: keys.crypto }));
  if (input.excerpt) {
    const { start, end } = input.excerpt;
    bundle.excerpt = { start, end, quote: input.excerpt.quote ?? Array.from(input.answer).slice(start, end).join('') };
  }
  return bundle;
}

/**
 * A transcript as issueTranscript makes it (its schema: `@svc/core/schemas` TranscriptBundle).
 *
 * @example
 * ```ts
 * const t: TranscriptBundle = issueTranscript(turns, { title: 'support chat' });
 * ```
 */
export type TranscriptBundle = Static<typeof S.TranscriptBundle>;

/**
 * An autopilot run as issueRun signs it: the schema's RunProofBundle, with the members issuing always
 * sets, and the run as it was given (`R`).
 *
 * @example
 * ```ts
 * const b: RunBundle = issueRun(run, { model: 'm-1', ts: 1767225600 }, { receipt: K.autopilot });
 * b.receiptKey.context; // 'svc-autopilot-v1'
 * ```
 */
export type RunBundle<R extends JsonObject = Static<typeof S.RunProofBundle>['run'] & JsonObject> = Omit<
  Static<typeof S.RunProofBundle>,
  'run'
> & {
  v: 1;
  /** The run as given: what is signed is its RFC 8785 text, whatever it holds. */
  run: R;
  receipt: ReceiptEnvelope;
  receiptKey: ReceiptKey;
};

/**
 * An export archive as issueExport signs it: the schema's ExportArchive, with the members issuing
 * always sets, and the conversations as they were given (`C`).
 *
 * @example
 * ```ts
 * const a: ExportBundle = issueExport(conversations, { model: 'm-1', ts: 1767225600 }, { receipt: K.export });
 * a.proof.manifest === a.signed_manifest; // true
 * ```
 */
export type ExportBundle<C extends JsonObject = Static<typeof S.ExportArchive>['conversations'][number] & JsonObject> = Omit<
  Static<typeof S.ExportArchive>,
  'conversations'
> & {
  service: string;
  count: number;
  signed_manifest: string;
  /** The conversations as given: the signed manifest commits to their hash and counts. */
  conversations: C[];
};

/**
 * A consistency bundle as issueConsistency makes it (its schema: `@svc/core/schemas` ConsistencyBundle).
 *
 * @example
 * ```ts
 * const c: ConsistencyBundle = issueConsistency(oldHead, newHead, consistencyProof(tree, 4, 8));
 * ```
 */
export type ConsistencyBundle = Static<typeof S.ConsistencyBundle>;

/**
 * A TranscriptBundle of proof bundles, one per turn (V2: every turn verifies as a ProofBundle).
 *
 * @example
 * ```ts
 * const K = testKeys('example');
 * const turns = ['Hi.', 'Bye.'].map((answer, i) => issueProof({ answer, model: 'm-1', ts: 1767225600 + i }, { receipt: K.answer }));
 * const transcript = issueTranscript(turns, { title: 'support chat' });
 * ```
 */
export function issueTranscript(turns: JsonObject[], opts: ServiceOptions & { title?: string } = {}): TranscriptBundle {
  const out: TranscriptBundle = { kind: namesFor(opts.service).kinds.transcript, turns };
  if (opts.title !== undefined) out.title = opts.title;
  return out;
}

/**
 * Sign an autopilot run under the autopilot context (V3), so a run receipt never passes as an answer.
 *
 * @example
 * ```ts
 * const K = testKeys('example');
 * const run = { id: 'r1', goal: 'summarise', steps: [{ i: 0, action: 'search', output_sha256: '00'.repeat(32), verify: 'none', credits: 2 }], spentCredits: 2 };
 * const bundle = issueRun(run, { model: 'm-1', ts: 1767225600 }, { receipt: K.autopilot });
 * ```
 */
export function issueRun<R extends JsonObject>(
  run: R,
  meta: { model: string; ts: number; created?: number },
  keys: IssuerKeys,
  opts: ServiceOptions = {},
): RunBundle<R> {
  const n = namesFor(opts.service);
  const hash = runHash(run);
  if (hash === null) throw new TypeError('run is not canonicalisable JSON');
  const receipt = signReceipt(
    { v: 1, model: meta.model, answer_sha256: hash, ts: meta.ts },
    keys.receipt,
    n.contexts.autopilot,
    receiptOptions(keys, n),
  );
  return {
    v: 1,
    kind: n.kinds.run,
    ...(meta.created !== undefined ? { created: meta.created } : {}),
    run,
    receipt,
    receiptKey: toReceiptKey(keys.receipt, n.contexts.autopilot, keys.slh, envelopeEd25519(keys)),
  };
}

/**
 * Sign an export archive: the receipt signs a canonical manifest committing to the payload hash and counts.
 *
 * @example
 * ```ts
 * const K = testKeys('example');
 * const archive = issueExport([{ id: 'c1', messages: [{ role: 'user', content: 'hi' }] }], { model: 'm-1', ts: 1767225600 }, { receipt: K.export });
 * ```
 */
export function issueExport<C extends JsonObject>(
  conversations: C[],
  meta: { model: string; ts: number; created?: number; exported?: string },
  keys: IssuerKeys,
  opts: ServiceOptions = {},
): ExportBundle<C> {
  const n = namesFor(opts.service);
  const messages = countMessages(conversations);
  if (messages === null) throw new TypeError('every conversation needs a messages array');
  const manifest = exportManifest(conversations, messages);
  const receipt = signReceipt(
    { v: 1, model: meta.model, answer_sha256: sha256Hex(manifest), ts: meta.ts },
    keys.receipt,
    n.contexts.export,
    receiptOptions(keys, n),
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
      receiptKey: toReceiptKey(keys.receipt, n.contexts.export, keys.slh, envelopeEd25519(keys)),
    },
  };
}

/**
 * A signed tree head: the canonical body text, its receipt and the key that signed it.
 *
 * @example
 * ```ts
 * const sth: SthBundle = signTreeHead({ log: 'svc-ledger', tree_size: 1, root_hash: '00'.repeat(32), timestamp: 1767225600000 }, K.sth);
 * JSON.parse(sth.signed).tree_size; // 1
 * ```
 */
export type SthBundle = Static<typeof S.SthBundle>;

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

/**
 * A consistency bundle (V9): two signed tree heads of one log and the RFC 6962 proof between them.
 *
 * @example
 * ```ts
 * const proof = consistencyProof(tree, 4, 8);
 * const bundle = issueConsistency(oldHead, newHead, proof);
 * (await verifyBundle(bundle, { trustedKeys })).verdict.overallOk;
 * ```
 */
export function issueConsistency(
  oldHead: SthBundle,
  newHead: SthBundle,
  proof: Uint8Array[],
  opts: ServiceOptions = {},
): ConsistencyBundle {
  return { kind: namesFor(opts.service).kinds.consistency, old: oldHead, new: newHead, proof: proof.map(toHex) };
}
