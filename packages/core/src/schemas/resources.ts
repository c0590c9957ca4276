// TypeBox schemas for every resource of interface.md: the single source of the shapes. The server
// publishes them as OpenAPI 3.1 and validates its responses against them in tests. Kind constants
// depend on the deployment's service name, so they are strings here, not literals.
import Type from 'typebox';
import { MAX_ORG_LENGTH, MAX_TURNS } from '../limits.js';

const Hex = Type.String({ pattern: '^([0-9a-f]{2})*$' });
/**
 * A TypeBox schema that also admits null.
 *
 * @example
 * ```ts
 * import { Type } from 'typebox';
 * const MaybeSize = Nullable(Type.Integer({ minimum: 0 }));
 * ```
 */
export const Nullable = <T extends Type.TSchema>(t: T) => Type.Union([t, Type.Null()]);

/**
 * TypeBox schema of a published receipt key (`trustedKeys` entries).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * const trustedKeys = JSON.parse(text).filter((k: unknown) => Value.Check(ReceiptKey, k));
 * ```
 */
export const ReceiptKey = Type.Object(
  {
    key_id: Type.String(),
    public_key_hex: Type.String(),
    algo: Type.String(),
    context: Type.String(),
    slh_public_key_hex: Type.Optional(Type.String()),
    ed25519_public_key_hex: Type.Optional(Type.String()),
  },
  { $id: 'ReceiptKey' },
);

/**
 * TypeBox schema of a signed receipt (wire-format s.3).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(ReceiptEnvelope, bundle.receipt);
 * ```
 */
export const ReceiptEnvelope = Type.Object(
  {
    v: Type.Integer(),
    model: Type.String(),
    answer_sha256: Type.String(),
    governance_flag: Type.Optional(Type.String()),
    ts: Type.Integer(),
    council_grounded: Type.Optional(Type.Boolean()),
    sig: Type.String(),
    key_id: Type.String(),
    context: Type.String(),
    algo: Type.String(),
    prompt_sha256: Type.Optional(Type.String()),
    answer_form: Type.Optional(Type.String({ description: 'present for an answer in the message form (wire-format s.15): "message"' })),
    request_sha256: Type.Optional(
      Type.String({ description: "hex SHA-256 of the RFC 8785 text of the bundle's request (wire-format s.15)" }),
    ),
    framing: Type.Optional(
      Type.Object({
        persona: Type.Integer({ minimum: 0, maximum: 1 }),
        voice: Type.Integer({ minimum: 0, maximum: 1 }),
        attachment: Type.Integer({ minimum: 0, maximum: 1 }),
        history_turns: Type.Integer({ minimum: 0 }),
        sig: Type.String(),
      }),
    ),
    slh: Type.Optional(Type.Object({ key_id: Type.String(), sig: Type.String() })),
    envelopes: Type.Optional(
      Type.Object({
        jws: Type.Optional(
          Type.Object({
            payload: Type.String(),
            signatures: Type.Array(Type.Object({ protected: Type.String(), signature: Type.String() })),
          }),
        ),
        cose: Type.Optional(Type.Array(Type.String())),
      }),
    ),
  },
  { $id: 'ReceiptEnvelope' },
);

/**
 * TypeBox schema of a model-plane key entry.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(BridgeKey, { role: 'primary', alg: 'ML-DSA-87', key_id: '...', public_key_b64: '...' });
 * ```
 */
export const BridgeKey = Type.Object({
  role: Type.Union([Type.Literal('primary'), Type.Literal('cosign')]),
  alg: Type.Union([Type.Literal('ML-DSA-87'), Type.Literal('Falcon-1024')]),
  key_id: Type.String(),
  public_key_b64: Type.String(),
});

/**
 * TypeBox schema of a ProofBundle.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(ProofBundle, issueProof(input, { receipt: K.answer }));
 * ```
 */
export const ProofBundle = Type.Object(
  {
    v: Type.Optional(Type.Integer()),
    kind: Type.String(),
    created: Type.Optional(Type.Integer()),
    answer: Type.String(),
    prompt: Type.Optional(Type.Unknown()),
    request: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'the request members beyond the messages that the model read, as sent (wire-format s.15)',
      }),
    ),
    receipt: Type.Optional(ReceiptEnvelope),
    receiptKey: Type.Optional(ReceiptKey),
    attestation: Type.Optional(
      Type.Object({
        v: Type.Integer(),
        payload: Type.String(),
        primary: Type.Object({ key_id: Type.String(), sig: Type.String() }),
        cosign: Type.Optional(Type.Object({ key_id: Type.String(), sig: Type.String() })),
      }),
    ),
    bridgeKeys: Type.Optional(Type.Array(BridgeKey)),
    excerpt: Type.Optional(Type.Object({ start: Type.Integer(), end: Type.Integer(), quote: Type.String() })),
    tlogProof: Type.Optional(Type.String({ description: "c2sp.org/tlog-proof@v1 of the answer's leaf in the service's transparency log" })),
    scitt: Type.Optional(
      Type.String({
        description:
          'base64url of a SCITT Transparent Statement (RFC 9943) about the answer, signed with the receipt key, with RFC 9942 receipts',
      }),
    ),
  },
  { $id: 'ProofBundle' },
);

/**
 * TypeBox schema of a TranscriptBundle (V2).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(TranscriptBundle, transcript);
 * ```
 */
export const TranscriptBundle = Type.Object(
  {
    kind: Type.String(),
    title: Type.Optional(Type.String()),
    turns: Type.Array(Type.Object({}), { maxItems: MAX_TURNS }),
  },
  { $id: 'TranscriptBundle' },
);

/**
 * TypeBox schema of one step of an autopilot run.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(RunStep, { i: 0, action: 'search', output_sha256: '00'.repeat(32), verify: 'none', credits: 2 }); // true
 * ```
 */
export const RunStep = Type.Object({
  i: Type.Integer(),
  action: Type.String(),
  output_sha256: Hex,
  verify: Type.String(),
  credits: Type.Integer(),
});

/**
 * TypeBox schema of an autopilot run bundle (V3).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(RunProofBundle, runBundle);
 * ```
 */
export const RunProofBundle = Type.Object(
  {
    v: Type.Optional(Type.Integer()),
    kind: Type.String(),
    created: Type.Optional(Type.Integer()),
    run: Type.Object({
      id: Type.String(),
      goal: Type.String(),
      steps: Type.Array(RunStep),
      status: Type.Optional(Type.String()),
      budgetCredits: Type.Optional(Type.Integer()),
      spentCredits: Type.Optional(Type.Integer()),
      maxSteps: Type.Optional(Type.Integer()),
      summary: Type.Optional(Type.String()),
      stopReason: Type.Optional(Type.String()),
    }),
    receipt: Type.Optional(ReceiptEnvelope),
    receiptKey: Type.Optional(ReceiptKey),
  },
  { $id: 'RunProofBundle' },
);

/**
 * TypeBox schema of an export archive (wire-format s.9).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(ExportArchive, doc);
 * ```
 */
export const ExportArchive = Type.Object(
  {
    service: Type.Optional(Type.String()),
    exported: Type.Optional(Type.String()),
    count: Type.Optional(Type.Integer()),
    conversations: Type.Array(
      Type.Object({
        id: Type.String(),
        title: Type.Optional(Type.String()),
        messages: Type.Array(Type.Object({ role: Type.String(), content: Type.String(), ts: Type.Optional(Type.Integer()) })),
      }),
    ),
    signed_manifest: Type.Optional(Type.String()),
    proof: Type.Object({
      v: Type.Optional(Type.Integer()),
      kind: Type.String(),
      context: Type.Optional(Type.String()),
      created: Type.Optional(Type.Integer()),
      manifest: Type.String(),
      receipt: ReceiptEnvelope,
      receiptKey: ReceiptKey,
    }),
  },
  { $id: 'ExportArchive' },
);

/**
 * TypeBox schema of a signed tree head bundle (wire-format s.10).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(SthBundle, JSON.parse(text));
 * ```
 */
export const SthBundle = Type.Object(
  {
    signed: Type.String(),
    receipt: ReceiptEnvelope,
    key: ReceiptKey,
  },
  { $id: 'SthBundle' },
);

/**
 * TypeBox schema of a consistency bundle (V9).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(ConsistencyBundle, doc);
 * ```
 */
export const ConsistencyBundle = Type.Object(
  {
    kind: Type.String(),
    old: SthBundle,
    new: SthBundle,
    proof: Type.Array(Hex),
    sth_withheld: Type.Optional(Type.String()),
  },
  { $id: 'ConsistencyBundle' },
);

/**
 * TypeBox schema of one row of a record's AI Act table.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * record.ai_act_support.every((row) => Value.Check(AiActSupportItem, row));
 * ```
 */
export const AiActSupportItem = Type.Object({
  article: Type.String(),
  title: Type.String(),
  supports: Type.String(),
  limits: Type.String(),
});

/**
 * TypeBox schema of a record's `attested` summary (E4).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(Attested, record.attested);
 * ```
 */
export const Attested = Type.Object({
  signed: Type.Boolean(),
  signer_recognized: Nullable(Type.Boolean()),
  answer_sha256: Type.Optional(Type.String()),
  algorithms: Type.Array(Type.String()),
  governance_flag: Type.Optional(Type.String()),
  council_grounded: Nullable(Type.Boolean()),
  signed_at: Nullable(Type.Integer()),
  receipt_key_id: Type.Optional(Type.String()),
  question_attested: Nullable(Type.Boolean()),
  question_binding: Nullable(Type.Union([Type.Literal('entire-input'), Type.Literal('current-message'), Type.Literal('none')])),
  quote_attested: Nullable(Type.Boolean()),
  step_verification: Type.Optional(Type.Array(Type.String())),
  logged: Type.Optional(Type.Object({ origin: Type.String(), index: Type.Integer(), tree_size: Type.Integer() })),
});

/**
 * TypeBox schema of an AI Provenance Record (E1-E4).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(AiProvenanceRecord, record);
 * ```
 */
export const AiProvenanceRecord = Type.Object(
  {
    schema: Type.String(),
    schema_version: Type.Literal(1),
    generated: Type.Integer(),
    subject: Type.Optional(Type.Object({ organisation: Type.String({ maxLength: MAX_ORG_LENGTH }) })),
    attested: Attested,
    ai_act_support: Type.Optional(Type.Array(AiActSupportItem)),
    proof: Type.Object({}),
    verify_instructions: Type.Optional(Type.String()),
    disclaimer: Type.String(),
    notes: Type.Optional(Type.Array(Type.String())),
    record_type: Type.Optional(Type.Literal('autopilot_run')),
  },
  { $id: 'AiProvenanceRecord' },
);
