// What an issuing request may say, once: the answer object of `POST /api/v1/issue`, of each item of
// the batch form and of each `svc issue --jsonl` line. A TypeBox schema (published in the private
// OpenAPI document) checks the shape; the rules a schema cannot say are checked after it.
import { textSha256 } from '@svc/core/primitives';
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { Config } from '../config.js';
import type { IssueInput } from './issuer.js';

/** The most answers one batch request (or one --jsonl batch) signs. */
export const MAX_BATCH = 256;
/** The most UTF-16 code units of an answer or question (1 MiB of body holds a few of these). */
export const MAX_TEXT = 256 * 1024;

const Bit = Type.Union([Type.Literal(0), Type.Literal(1)]);

/** The answer object: only `answer` is required; unknown members are refused (a typo must not be dropped silently). */
export const IssueRequest = Type.Object(
  {
    answer: Type.String({ maxLength: MAX_TEXT, description: 'The answer text, signed as its exact UTF-8 bytes.' }),
    prompt: Type.Optional(Type.String({ maxLength: MAX_TEXT, description: 'The question, bound by its hash in the receipt.' })),
    model: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: 'The model that answered; default `<service>-council`.' }),
    ),
    framing: Type.Optional(
      Type.Object(
        { persona: Bit, voice: Bit, attachment: Bit, history_turns: Type.Integer({ minimum: 0, maximum: 1_000_000 }) },
        { additionalProperties: false, description: 'How the question was put; binds it as current-message rather than entire-input.' },
      ),
    ),
    governance_flag: Type.Optional(Type.String({ maxLength: 256 })),
    council_grounded: Type.Optional(Type.Boolean({ description: 'Whether a council grounded the answer; false when absent.' })),
    envelopes: Type.Optional(
      Type.Array(Type.Union([Type.Literal('jws'), Type.Literal('cose')]), { minItems: 1, maxItems: 2, uniqueItems: true }),
    ),
    logged: Type.Optional(Type.Boolean({ description: 'Wait for a published checkpoint and embed a c2sp.org/tlog-proof.' })),
    scitt: Type.Optional(
      Type.Boolean({ description: 'Register a SCITT Signed Statement about the answer and embed the Transparent Statement.' }),
    ),
  },
  { additionalProperties: false },
);

/** The batch form: `{"answers": [...]}`, 1 to MAX_BATCH answer objects, one append, one signed head. */
export const IssueBatchRequest = Type.Object(
  { answers: Type.Array(IssueRequest, { minItems: 1, maxItems: MAX_BATCH }) },
  { additionalProperties: false },
);

export type IssueRequestBody = Static<typeof IssueRequest>;

/** The first schema error of a value, as a short sentence naming where it is. */
export function schemaError(schema: TSchema, v: unknown): string | null {
  if (Value.Check(schema, v)) return null;
  const errors = [...Value.Errors(schema, v)] as { keyword: string; schemaPath: string; instancePath: string; message: string }[];
  const extra = errors.find((e) => e.schemaPath.endsWith('/additionalProperties') && e.keyword === 'boolean');
  if (extra) return `unknown member ${extra.instancePath}`;
  const e = errors.find((x) => x.keyword !== 'additionalProperties' && x.keyword !== 'anyOf') ?? errors[0];
  if (!e) return 'does not match the schema';
  return `${e.instancePath ? `${e.instancePath}: ` : ''}${e.message}`;
}

/**
 * One answer object as the issuer takes it, or why it is refused. `cfg` says what this deployment
 * can do (SCITT and logged answers need the ledger).
 */
export function parseIssueInput(v: unknown, cfg: Pick<Config, 'ledger'>): IssueInput | string {
  const bad = schemaError(IssueRequest, v);
  if (bad) return bad;
  const r = v as IssueRequestBody;
  // Signed as exact UTF-8: a lone surrogate has no such form, in any member that is signed.
  for (const k of ['answer', 'prompt', 'model', 'governance_flag'] as const)
    if (typeof r[k] === 'string' && !textSha256(r[k])) return `${k} is not valid Unicode text (a lone surrogate)`;
  if (r.framing && r.prompt === undefined) return 'framing describes a question: give prompt with it';
  if (!cfg.ledger && (r.logged || r.scitt)) return `${r.logged ? 'logged' : 'scitt'} needs the ledger, which is off here`;
  return r as IssueInput;
}
