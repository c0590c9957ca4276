// The server's API payloads (interface.md): error bodies, keys, the CBOM, the ledger's answers and
// the council's health. Verdict shapes are in verdicts.ts; a verifier needs none of these.
import Type from 'typebox';
import { Nullable, ReceiptKey, SthBundle } from './resources.js';

/**
 * TypeBox schema of every error answer: `{ error, code }`, and `request_id` on a 500 (`internal`).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * if (!res.ok && Value.Check(ErrorBody, await res.json())) console.log('a documented refusal');
 * ```
 */
export const ErrorBody = Type.Object(
  { error: Type.String(), code: Type.Optional(Type.String()), request_id: Type.Optional(Type.String()) },
  { $id: 'Error', additionalProperties: false },
);

/**
 * TypeBox schema of GET /api/provenance/pubkey.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * const body = await (await fetch(`${base}/api/provenance/pubkey`)).json();
 * if (Value.Check(PubkeysResponse, body)) console.log(body.keys.length);
 * ```
 */
export const PubkeysResponse = Type.Object(
  {
    algo: Type.String(),
    context: Type.String(),
    configured: Type.Boolean(),
    keys: Type.Array(ReceiptKey),
    slh_diversity: Type.Optional(Type.Object({ algo: Type.String(), key_id: Type.String(), public_key_hex: Type.String() })),
    envelope_ed25519: Type.Optional(Type.Object({ algo: Type.Literal('Ed25519'), key_id: Type.String(), public_key_hex: Type.String() })),
  },
  { $id: 'PubkeysResponse', additionalProperties: false },
);

/**
 * TypeBox schema of GET /v1/provenance/pubkeys (the model-plane keys).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(ModelPlaneKeys, await (await fetch(`${base}/v1/provenance/pubkeys`)).json());
 * ```
 */
export const ModelPlaneKeys = Type.Object(
  {
    signer: Type.String(),
    keys: Type.Array(
      Type.Object({
        role: Type.String(),
        alg: Type.String(),
        key_id: Type.String(),
        public_key_b64: Type.String(),
      }),
    ),
  },
  { $id: 'ModelPlaneKeys', additionalProperties: false },
);

/**
 * TypeBox schema of GET /api/v1/evidence-signer.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(EvidenceSigner, await (await fetch(`${base}/api/v1/evidence-signer`)).json());
 * ```
 */
export const EvidenceSigner = Type.Object(
  {
    role: Type.String(),
    issuer: Type.String(),
    alg: Type.String(),
    verify: Type.String(),
    notice: Type.String(),
    keys: Type.Object({}, { additionalProperties: Type.Object({ publicKeyHex: Type.String(), fingerprint: Type.String() }) }),
  },
  { $id: 'EvidenceSigner', additionalProperties: false },
);

/**
 * TypeBox schema of GET /api/cbom (CycloneDX cryptography bill of materials).
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(Cbom, await (await fetch(`${base}/api/cbom`)).json());
 * ```
 */
export const Cbom = Type.Object(
  {
    bomFormat: Type.String(),
    specVersion: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.Object({})),
    cryptography: Type.Array(
      Type.Object({
        name: Type.String(),
        standard: Type.String(),
        type: Type.String(),
        role: Type.String(),
        status: Type.String(),
      }),
    ),
    posture: Type.Optional(Type.Object({})),
    disclaimer: Type.String(),
  },
  { $id: 'Cbom' },
);

/**
 * TypeBox schema of GET /api/transparency/ledger.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(LedgerSth, await (await fetch(`${base}/api/transparency/ledger`)).json());
 * ```
 */
export const LedgerSth = Type.Object(
  {
    enabled: Type.Boolean(),
    log: Type.Optional(Type.String()),
    algo: Type.Optional(Type.String()),
    leaf_hashing: Type.Optional(Type.String()),
    tree_size: Type.Optional(Type.Integer({ minimum: 0 })),
    root_hash: Type.Optional(Type.String()),
    signed_tree_head: Type.Optional(Nullable(SthBundle)),
    sth_withheld: Type.Optional(Type.Union([Type.Literal('rollback'), Type.Literal('fork'), Type.Literal('unverifiable')])),
    note: Type.Optional(Type.String()),
  },
  { $id: 'LedgerSth', additionalProperties: false },
);

/**
 * TypeBox schema of the body of POST /api/transparency/ledger/inclusion.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(InclusionRequest, { answer_sha256: bundle.receipt.answer_sha256 });
 * ```
 */
export const InclusionRequest = Type.Object(
  {
    answer: Type.Optional(Type.String()),
    answer_sha256: Type.Optional(Type.String()),
    leaf: Type.Optional(Type.String()),
    tree_size: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: 'InclusionRequest' },
);

/**
 * TypeBox schema of the answer of POST /api/transparency/ledger/inclusion.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(InclusionResponse, body);
 * ```
 */
export const InclusionResponse = Type.Object(
  {
    found: Type.Boolean(),
    leaf: Type.Optional(Type.String()),
    index: Type.Optional(Type.Integer({ minimum: 0 })),
    tree_size: Type.Optional(Type.Integer({ minimum: 0 })),
    root_hash: Type.Optional(Type.String()),
    proof: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'InclusionResponse', additionalProperties: false },
);

/**
 * TypeBox schema of GET /api/transparency/ledger/consistency.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(ConsistencyResponse, body);
 * ```
 */
export const ConsistencyResponse = Type.Object(
  {
    first: Type.Integer(),
    second: Type.Integer(),
    old_root: Type.String(),
    new_root: Type.String(),
    proof: Type.Array(Type.String()),
    sth_withheld: Type.Optional(Type.String()),
    bundle_withheld: Type.Optional(Type.Literal('timestamp-order')),
  },
  { $id: 'ConsistencyResponse', additionalProperties: false },
);

/**
 * TypeBox schema of GET /api/transparency/ledger/history.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(LedgerHistory, body);
 * ```
 */
export const LedgerHistory = Type.Object(
  {
    enabled: Type.Boolean(),
    consistent: Type.Optional(Nullable(Type.Boolean())),
    consistent_unknown: Type.Optional(Type.Union([Type.Literal('leaves_unreadable'), Type.Literal('leaf_check_incomplete')])),
    forked_sizes: Type.Optional(Type.Array(Type.Integer())),
    append_only_verified: Type.Optional(Nullable(Type.Boolean())),
    inconsistent_sizes: Type.Optional(Type.Array(Type.Integer())),
    count: Type.Optional(Type.Integer()),
    checkpoints: Type.Optional(
      Type.Array(
        Type.Object({
          tree_size: Type.Integer(),
          root_hash: Type.String(),
          signed: Type.String(),
          recorded: Type.Integer(),
        }),
      ),
    ),
    signed_checkpoints: Type.Optional(
      Nullable(
        Type.Array(
          Type.Object({
            signed: Type.String(),
            receipt: Type.Object({}),
            key: Nullable(Type.Object({})),
          }),
        ),
      ),
    ),
    note: Type.Optional(Type.String()),
  },
  { $id: 'LedgerHistory', additionalProperties: false },
);

/**
 * TypeBox schema of GET /api/status/council.
 *
 * @example
 * ```ts
 * import { Value } from 'typebox/value';
 * Value.Check(CouncilHealth, body);
 * ```
 */
export const CouncilHealth = Type.Object(
  {
    ok: Type.Boolean(),
    defined: Type.Integer({ minimum: 0 }),
    configured: Type.Integer({ minimum: 0 }),
    working: Type.Integer({ minimum: 0 }),
    probed_at: Type.String({ format: 'date-time' }),
    seats: Type.Array(
      Type.Object({
        id: Type.String(),
        label: Type.String(),
        model: Type.String(),
        ok: Type.Boolean(),
        keyed: Type.Boolean(),
        ms: Type.Optional(Type.Integer({ minimum: 0 })),
      }),
    ),
  },
  { $id: 'CouncilHealth', additionalProperties: false },
);
