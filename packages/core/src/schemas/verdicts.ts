// Verdict shapes: what verification reports, layer by layer and kind by kind, and the answer of
// POST /api/v1/verify. The server's other payloads are in payloads.ts.
import Type from 'typebox';
import { Nullable } from './resources.js';

const Bit = Type.Union([Type.Literal(0), Type.Literal(1)]);

/**
 * TypeBox schema of a v:2 receipt's framing disclosure as verified; the source of `FramingVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(FramingVerdict, verdict.receipt.framing);
 * ```
 */
export const FramingVerdict = Type.Object({
  present: Type.Boolean(),
  ok: Type.Boolean(),
  persona: Type.Optional(Bit),
  voice: Type.Optional(Bit),
  attachment: Type.Optional(Bit),
  historyTurns: Type.Optional(Type.Integer({ minimum: 0 })),
});

/**
 * TypeBox schema of a receipt's signed request disclosure (wire-format s.15): the digest of what the
 * request put before the model beyond its messages, checked against the `request` the bundle carries.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(RequestVerdict, verdict.receipt.request);
 * ```
 */
export const RequestVerdict = Type.Object({
  present: Type.Boolean(),
  ok: Type.Boolean(),
  /** The request's member names, sorted; reported only when `ok`. */
  members: Type.Optional(Type.Array(Type.String())),
});

/**
 * TypeBox schema of a message-form answer as verified (wire-format s.15): tool calls, a refusal,
 * why the answer ended. Present exactly when the receipt says its answer is in the message form.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(MessageVerdict, verdict.message);
 * ```
 */
export const MessageVerdict = Type.Object({
  ok: Type.Boolean(),
  finishReason: Type.Optional(Type.String()),
  content: Type.Optional(Type.String()),
  refusal: Type.Optional(Type.String()),
  toolCalls: Type.Optional(Type.Array(Type.Object({ id: Type.String(), name: Type.String(), arguments: Type.String() }))),
});

/**
 * TypeBox schema of a receipt's SLH-DSA diversity signature as verified; the source of `DiversityVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(DiversityVerdict, verdict.receipt.diversity);
 * ```
 */
export const DiversityVerdict = Type.Object({
  present: Type.Boolean(),
  ok: Type.Boolean(),
  keyId: Type.String(),
  /** ok, and by an SLH-DSA key this verifier pins (not only the one the bundle carries). */
  keyRecognized: Type.Boolean(),
});

/**
 * TypeBox schema of why an envelope (JWS or COSE_Sign1) or one of its signatures failed.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(EnvelopeError, 'bad_signature'); // true
 * ```
 */
export const EnvelopeError = Type.Union([
  Type.Literal('malformed'),
  Type.Literal('too_large'),
  Type.Literal('unsupported_alg'),
  Type.Literal('crit'),
  Type.Literal('wrong_typ'),
  Type.Literal('unknown_key'),
  Type.Literal('bad_signature'),
  Type.Literal('payload_mismatch'),
]);

/**
 * TypeBox schema of one envelope's result in a verdict: ok, the reason it failed, each signature.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(EnvelopeCheck, verdict.receipt.envelopes?.jws);
 * ```
 */
export const EnvelopeCheck = Type.Object({
  ok: Type.Boolean(),
  error: Type.Optional(EnvelopeError),
  signatures: Type.Array(
    Type.Object({
      alg: Type.String(),
      kid: Type.String(),
      ok: Type.Boolean(),
      error: Type.Optional(EnvelopeError),
      /** The media type the signature's protected header names (signed). */
      typ: Type.Optional(Type.String()),
      /** True only when the verifier pinned the key: an envelope by another key never counts as origin. */
      keyRecognized: Type.Optional(Type.Boolean()),
    }),
  ),
});

/**
 * TypeBox schema of what a verdict says of a receipt's envelopes (present only when it carries some):
 * `{checked: false}` without an envelope checker, else `ok` and each envelope's result.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(EnvelopesVerdict, verdict.receipt.envelopes);
 * ```
 */
export const EnvelopesVerdict = Type.Object({
  /** False when the verifier was given no envelope checker: nothing was judged, nothing counts. */
  checked: Type.Boolean(),
  ok: Type.Optional(Type.Boolean()),
  jws: Type.Optional(EnvelopeCheck),
  cose: Type.Optional(Type.Array(EnvelopeCheck)),
});

/**
 * TypeBox schema of what a proof verdict says of the SCITT Transparent Statement it carries
 * (`scitt`): `{checked: false}` without a SCITT checker (`scittChecker` from `@svc/core/scitt`),
 * else `ok`, the reason it failed, the statement's leaf entry and each receipt's result.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(ScittVerdict, verdict.scitt);
 * ```
 */
export const ScittVerdict = Type.Object({
  /** False when the verifier was given no SCITT checker: nothing was judged, nothing counts. */
  checked: Type.Boolean(),
  ok: Type.Optional(Type.Boolean()),
  error: Type.Optional(Type.String()),
  detail: Type.Optional(Type.String()),
  leaf: Type.Optional(Type.String()),
  receipts: Type.Optional(
    Type.Array(
      Type.Object({
        ok: Type.Boolean(),
        alg: Type.Optional(Type.String()),
        error: Type.Optional(Type.String()),
        iss: Type.Optional(Type.String()),
        index: Type.Optional(Type.Integer()),
        size: Type.Optional(Type.Integer()),
        root: Type.Optional(Type.String()),
        /** index and size are unsigned: true only when a trusted checkpoint at that size signs the root. */
        positionSigned: Type.Optional(Type.Boolean()),
      }),
    ),
  ),
  /** False when every receipt comes from a log this verifier does not know: the statement was judged, its logs were not. */
  logRecognized: Type.Optional(Type.Boolean()),
});

/**
 * TypeBox schema of a verdict's receipt layer; the source of `ReceiptVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(ReceiptVerdict, verdict.receipt);
 * ```
 */
export const ReceiptVerdict = Type.Object({
  present: Type.Boolean(),
  answerHashOk: Type.Boolean(),
  sigOk: Type.Boolean(),
  keyId: Type.String(),
  councilGrounded: Type.Boolean(),
  promptBound: Type.Boolean(),
  promptOk: Type.Boolean(),
  questionBinding: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('entire-input'), Type.Literal('current-message')])),
  framing: Type.Optional(FramingVerdict),
  request: Type.Optional(RequestVerdict),
  diversity: Type.Optional(DiversityVerdict),
  envelopes: Type.Optional(EnvelopesVerdict),
});

/**
 * TypeBox schema of a proof verdict's model-plane attestation layer; the source of `BridgeVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(BridgeVerdict, verdict.bridge);
 * ```
 */
export const BridgeVerdict = Type.Object({
  present: Type.Boolean(),
  primaryOk: Type.Boolean(),
  secondaryOk: Type.Boolean(),
  /** Whether a co-signature was carried at all (secondaryOk is false when it was not). */
  cosignPresent: Type.Boolean(),
  keyId: Type.String(),
  /** Verified, and by model-plane keys this verifier pins (the co-signature's too, when carried). */
  keyRecognized: Type.Boolean(),
});

/**
 * TypeBox schema of a proof verdict's log layer; the source of `LogVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(LogVerdict, verdict.log);
 * ```
 */
export const LogVerdict = Type.Object({
  present: Type.Literal(true),
  /** The proof parses and its path leads from the answer's leaf to the checkpoint's root (and, with a policy, no known key's line fails). */
  ok: Type.Boolean(),
  origin: Nullable(Type.String()),
  index: Nullable(Type.Integer()),
  treeSize: Nullable(Type.Integer()),
  /** Whether a policy was given to judge the signatures. */
  policyChecked: Type.Boolean(),
  /** A log key of the policy, named for the origin, signed the checkpoint. */
  logRecognized: Type.Boolean(),
  /** Distinct policy witnesses whose cosignatures verified. */
  witnesses: Type.Integer({ minimum: 0 }),
  /** The policy's quorum is met (null without a policy). */
  quorumMet: Nullable(Type.Boolean()),
});

/**
 * TypeBox schema of a pinned excerpt's check (V7); the source of `ExcerptVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(ExcerptVerdict, verdict.excerpt);
 * ```
 */
export const ExcerptVerdict = Type.Object({ present: Type.Boolean(), ok: Type.Boolean() });

const verdictBase = {
  overallOk: Type.Boolean(),
  checks: Type.Integer({ minimum: 0 }),
  signerRecognized: Type.Boolean(),
};

/**
 * TypeBox schema of what every verdict has (V5 and recognition); the source of `BaseVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(BaseVerdict, (await verifyBundle(text)).verdict); // true for every kind
 * ```
 */
export const BaseVerdict = Type.Object(verdictBase);

/**
 * TypeBox schema of a ProofBundle's verdict; the source of `ProofVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * const res = await verifyBundle(bundle);
 * if (res.kind === 'svc-proof') Value.Check(ProofVerdict, res.verdict); // true
 * ```
 */
export const ProofVerdict = Type.Object({
  ...verdictBase,
  receipt: ReceiptVerdict,
  promptUnverified: Type.Optional(Type.Literal(true)),
  message: Type.Optional(MessageVerdict),
  excerpt: Type.Optional(ExcerptVerdict),
  bridge: Type.Optional(BridgeVerdict),
  log: Type.Optional(LogVerdict),
  scitt: Type.Optional(ScittVerdict),
});

/**
 * TypeBox schema of a transcript's verdict (V2); the source of `TranscriptVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * if (res.kind === 'svc-transcript') Value.Check(TranscriptVerdict, res.verdict); // true
 * ```
 */
export const TranscriptVerdict = Type.Object({
  ...verdictBase,
  turns: Type.Array(Type.Object({ index: Type.Integer({ minimum: 0 }), verdict: ProofVerdict })),
  /** A turn carries a question no bound receipt verified (V6: reported, not failed). */
  promptUnverified: Type.Optional(Type.Literal(true)),
});

const RunMembers = Type.Object({ hashOk: Type.Boolean(), steps: Type.Integer({ minimum: 0 }), budgetOk: Type.Boolean() });

/**
 * TypeBox schema of an autopilot run's verdict (V3); the source of `RunVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * if (res.kind === 'svc-autopilot-run') Value.Check(RunVerdict, res.verdict); // true
 * ```
 */
export const RunVerdict = Type.Object({ ...verdictBase, receipt: ReceiptVerdict, run: RunMembers });

const ExportMembers = Type.Object({ manifestOk: Type.Boolean(), payloadOk: Type.Boolean(), countsOk: Type.Boolean() });

/**
 * TypeBox schema of an export archive's verdict (V11); the source of `ExportVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * if (res.kind === 'svc-export') Value.Check(ExportVerdict, res.verdict); // true
 * ```
 */
export const ExportVerdict = Type.Object({ ...verdictBase, receipt: ReceiptVerdict, export: ExportMembers });

/**
 * TypeBox schema of a tree head's size, root and time as verdicts show them; the source of `HeadSummary`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * if (res.kind === 'svc-consistency') Value.Check(HeadSummary, res.verdict.consistency.old); // true
 * ```
 */
export const HeadSummary = Type.Object({
  treeSize: Nullable(Type.Integer({ minimum: 0 })),
  rootHash: Nullable(Type.String()),
  timestamp: Nullable(Type.Integer({ minimum: 0 })),
});

const SthMembers = Type.Object({ bodyOk: Type.Boolean(), log: Nullable(Type.String()), ...HeadSummary.properties });

/**
 * TypeBox schema of a signed tree head's verdict (V10); the source of `SthVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * if (res.kind === 'svc-sth') Value.Check(SthVerdict, res.verdict); // true
 * ```
 */
export const SthVerdict = Type.Object({ ...verdictBase, receipt: ReceiptVerdict, sth: SthMembers });

const ConsistencyMembers = Type.Object({ old: HeadSummary, new: HeadSummary, proofOk: Type.Boolean() });

/**
 * TypeBox schema of a consistency bundle's verdict (V9); the source of `ConsistencyVerdict`.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * if (res.kind === 'svc-consistency') Value.Check(ConsistencyVerdict, res.verdict); // true
 * ```
 */
export const ConsistencyVerdict = Type.Object({
  ...verdictBase,
  old: SthVerdict,
  new: SthVerdict,
  consistency: ConsistencyMembers,
  /** Set when both heads are genuine: the old head was signed no later than the new one. */
  timestampOrderOk: Type.Optional(Type.Boolean()),
});

/**
 * The verdict of any kind, as POST /api/v1/verify documents it: the members every kind has, and
 * each kind's own members as optional (the OpenAPI component `Verdict`). Narrow through `kind` and
 * check against that kind's schema for the exact shape.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(Verdict, (await verifyBundle(text)).verdict); // true for every kind
 * ```
 */
export const Verdict = Type.Object(
  {
    ...verdictBase,
    receipt: Type.Optional(ReceiptVerdict),
    promptUnverified: Type.Optional(Type.Literal(true)),
    excerpt: Type.Optional(ExcerptVerdict),
    bridge: Type.Optional(BridgeVerdict),
    log: Type.Optional(LogVerdict),
    turns: Type.Optional(Type.Array(Type.Object({ index: Type.Integer(), verdict: Type.Object({ overallOk: Type.Boolean() }) }))),
    timestampOrderOk: Type.Optional(Type.Boolean()),
    run: Type.Optional(RunMembers),
    export: Type.Optional(ExportMembers),
    sth: Type.Optional(SthMembers),
    consistency: Type.Optional(Type.Object({ old: Type.Object({}), new: Type.Object({}), proofOk: Type.Boolean() })),
  },
  { $id: 'Verdict' },
);

/**
 * TypeBox schema of every 200 answer of POST /api/v1/verify.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(VerifyResponse, await verifyBundle(bundle));
 * ```
 */
export const VerifyResponse = Type.Object(
  {
    service: Type.String(),
    // Optional in interface.md; this server always sends both.
    kind: Type.Optional(Type.String()),
    created: Type.Optional(Nullable(Type.Integer())),
    verdict: Verdict,
    signerRecognized: Type.Boolean(),
    record: Type.Optional(
      Type.Object({
        schema: Type.String(),
        summaryOk: Type.Literal(true),
        originClaimUnconfirmed: Type.Optional(Type.Literal(true)),
        // The record's own statements (generated, notes, subject): shown, never attested.
        unattested: Type.Optional(Type.Array(Type.String())),
      }),
    ),
    disclaimer: Type.String(),
  },
  { $id: 'VerifyResponse', additionalProperties: false },
);
