// TypeBox schemas for every resource of interface.md: the single source of the shapes. The server
// publishes them as OpenAPI 3.1 and validates its responses against them in tests. Kind constants
// depend on the deployment's service name, so they are strings here, not literals.
import Type from 'typebox';

const Hex = Type.String({ pattern: '^([0-9a-f]{2})*$' });
export const Nullable = <T extends Type.TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ReceiptKey = Type.Object(
  {
    key_id: Type.String(),
    public_key_hex: Type.String(),
    algo: Type.String(),
    context: Type.String(),
    slh_public_key_hex: Type.Optional(Type.String()),
  },
  { $id: 'ReceiptKey' },
);

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
  },
  { $id: 'ReceiptEnvelope' },
);

export const BridgeKey = Type.Object({
  role: Type.Union([Type.Literal('primary'), Type.Literal('cosign')]),
  alg: Type.Union([Type.Literal('ML-DSA-87'), Type.Literal('Falcon-1024')]),
  key_id: Type.String(),
  public_key_b64: Type.String(),
});

export const ProofBundle = Type.Object(
  {
    v: Type.Optional(Type.Integer()),
    kind: Type.String(),
    created: Type.Optional(Type.Integer()),
    answer: Type.String(),
    prompt: Type.Optional(Type.Unknown()),
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
  },
  { $id: 'ProofBundle' },
);

export const TranscriptBundle = Type.Object(
  {
    kind: Type.String(),
    title: Type.Optional(Type.String()),
    turns: Type.Array(Type.Object({}), { maxItems: 200 }),
  },
  { $id: 'TranscriptBundle' },
);

export const RunStep = Type.Object({
  i: Type.Integer(),
  action: Type.String(),
  output_sha256: Hex,
  verify: Type.String(),
  credits: Type.Integer(),
});

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

export const SthBundle = Type.Object(
  {
    signed: Type.String(),
    receipt: ReceiptEnvelope,
    key: ReceiptKey,
  },
  { $id: 'SthBundle' },
);

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

export const AiActSupportItem = Type.Object({
  article: Type.String(),
  title: Type.String(),
  supports: Type.String(),
  limits: Type.String(),
});

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

export const AiProvenanceRecord = Type.Object(
  {
    schema: Type.String(),
    schema_version: Type.Literal(1),
    generated: Type.Integer(),
    subject: Type.Optional(Type.Object({ organisation: Type.String({ maxLength: 200 }) })),
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
