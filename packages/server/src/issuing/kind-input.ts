// What the kinds beyond one answer take, once, for `POST /api/v1/issue/transcript|run|export` and
// `svc issue --transcript|--run|--export`: TypeBox schemas (published in the private OpenAPI
// document) and the parse that turns a body into what the issuer signs, or says why not.
import { MAX_TURNS } from '@svc/core/issue';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import { IssueRequest, parseIssueInput, schemaError } from './input.js';
import type { IssueInput } from './issuer.js';
import type { ExportInput, RunInput, TranscriptInput } from './kinds.js';

const Hex64 = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Model = Type.String({ minLength: 1, maxLength: 256, description: 'The signer label in the receipt.' });

/** A transcript: its turns, answer objects as `POST /api/v1/issue` takes them, signed together. */
export const IssueTranscriptRequest = Type.Object(
  {
    turns: Type.Array(IssueRequest, { minItems: 1, maxItems: MAX_TURNS }),
    title: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

/** A step of a run: what it did, the SHA-256 of its output, how that output was checked, its cost. */
const RunStep = Type.Object(
  {
    i: Type.Optional(Type.Integer({ minimum: 0 })),
    action: Type.Optional(Type.String({ maxLength: 1024 })),
    output_sha256: Hex64,
    verify: Type.String({ minLength: 1, maxLength: 256, description: 'How the output was verified (schema, human, none...).' }),
    credits: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

/** An autopilot run's evidence pack (interface.md RunProofBundle `run`): only signed fields. */
export const IssueRunRequest = Type.Object(
  {
    run: Type.Object(
      {
        id: Type.String({ minLength: 1, maxLength: 256 }),
        goal: Type.String({ maxLength: 65_536 }),
        steps: Type.Array(RunStep, { maxItems: 10_000 }),
        status: Type.Optional(Type.String({ maxLength: 256 })),
        budgetCredits: Type.Optional(Type.Integer({ minimum: 0 })),
        spentCredits: Type.Optional(Type.Integer({ minimum: 0 })),
        maxSteps: Type.Optional(Type.Integer({ minimum: 0 })),
        summary: Type.Optional(Type.String({ maxLength: 65_536 })),
        stopReason: Type.Optional(Type.String({ maxLength: 256 })),
      },
      { additionalProperties: false },
    ),
    model: Type.Optional(Model),
  },
  { additionalProperties: false },
);

/** A conversation export: each conversation's messages, committed to by the signed manifest. */
export const IssueExportRequest = Type.Object(
  {
    conversations: Type.Array(
      Type.Object({ messages: Type.Array(Type.Object({}, { additionalProperties: true })) }, { additionalProperties: true }),
      { minItems: 1, maxItems: 10_000 },
    ),
    exported: Type.Optional(Type.String({ maxLength: 64, description: 'When it was exported (display only, not signed).' })),
    model: Type.Optional(Model),
  },
  { additionalProperties: false },
);

/** A transcript body as the issuer takes it, or why it is refused (naming the turn). */
export function parseTranscript(v: unknown, cfg: Pick<Config, 'ledger'>): TranscriptInput<IssueInput> | string {
  const bad = schemaError(IssueTranscriptRequest, v);
  if (bad) return bad;
  const b = v as { turns: unknown[]; title?: string };
  const turns: IssueInput[] = [];
  for (const [i, t] of b.turns.entries()) {
    const r = parseIssueInput(t, cfg);
    if (typeof r === 'string') return `turns[${i}]: ${r}`;
    turns.push(r);
  }
  return { turns, ...(b.title !== undefined ? { title: b.title } : {}) };
}

/** A run body, or why it is refused; the budget rule (V3) is the verifier's, checked on what is signed. */
export function parseRun(v: unknown): RunInput | string {
  return schemaError(IssueRunRequest, v) ?? (v as RunInput);
}

/** An export body, or why it is refused. */
export function parseExport(v: unknown): ExportInput | string {
  return schemaError(IssueExportRequest, v) ?? (v as ExportInput);
}
