// Issuing the kinds beyond one answer (issue 52, part 6): a transcript of issued turns, an autopilot
// run's evidence pack, and a signed conversation export. Each is signed by the key of its own
// context (the run's under the autopilot context, the export's under the export context, so neither
// passes as an answer), checked by the verifier before it is returned (nothing is handed out that
// would not verify), and its signed hash appended to the log like an answer's.
import { randomBytes } from 'node:crypto';
import { type CryptoBackend, type Names, type ReceiptKey, type VerifyResponse, verifyBundle } from '@svc/core';
import { fromHex } from '@svc/core/primitives';
import { issueExport, issueRun, issueTranscript, type IssuerKeys, MAX_TURNS, type ProofBundle } from '@svc/core/issue';
import type { Keyring } from '../keys/keyring.js';
import { pinnedKeys } from '../keys/publish.js';
import { LedgerError } from '../ledger/errors.js';
import type { LedgerApi } from '../ledger/api.js';

type Obj = Record<string, unknown>;

/**
 * A transcript to issue: its turns, each an answer issued as `issue` issues one.
 *
 * @example
 * ```ts
 * const transcript = await issuer.issueTranscript({ title: 'support chat', turns: [{ answer: 'Hello.' }, { answer: 'Paris.' }] });
 * ```
 */
export interface TranscriptInput<Turn> {
  turns: readonly Turn[];
  title?: string;
}

/**
 * An autopilot run to sign: goal, steps with output hashes and verification method, budget.
 *
 * @example
 * ```ts
 * const step = { output_sha256: 'ab'.repeat(32), verify: 'schema', credits: 2 };
 * const pack = await issuer.issueRun({ run: { id: 'run-7', goal: 'Draft a note', steps: [step], spentCredits: 2 } });
 * ```
 */
export interface RunInput {
  /** The run as interface.md's RunProofBundle `run` (id, goal, steps; status, budget, summary...). */
  run: Record<string, unknown>;
  model?: string;
}

/**
 * A conversation export to sign: the conversations, each with its messages.
 *
 * @example
 * ```ts
 * const archive = await issuer.issueExport({ conversations: [{ id: 'c1', messages: [{ role: 'user', content: 'Hi' }] }] });
 * ```
 */
export interface ExportInput {
  conversations: readonly Record<string, unknown>[];
  /** When the export was made, as the archive says it (not signed: display only). */
  exported?: string;
  model?: string;
}

const refuse = (why: string) => new LedgerError('invalid_request', why);

/** Why a verdict failed, in the words of its first failing layer, for the caller to act on. */
function failing(v: VerifyResponse): string {
  const verdict = v.verdict as Obj;
  const layers = Object.entries(verdict).filter(([, x]) => typeof x === 'object' && x !== null && (x as Obj).ok === false);
  return layers.length > 0 ? layers.map(([k]) => k).join(', ') : 'the bundle';
}

/**
 * The run and export issuers: sign with the context's key, verify what was signed with that key
 * pinned, then append the receipt's signed hash.
 */
export class KindIssuer {
  constructor(
    private readonly ring: Keyring,
    private readonly names: Names,
    private readonly ledger: Pick<LedgerApi, 'append'> | null,
    private readonly now: () => number,
    private readonly crypto: CryptoBackend | undefined,
  ) {}

  // The keys a verifier of this service pins: what is returned must verify by them.
  private pinnedKeys: ReceiptKey[] | null = null;
  private pinned(): ReceiptKey[] {
    if (!this.pinnedKeys) this.pinnedKeys = pinnedKeys(this.ring, this.names, false);
    return this.pinnedKeys;
  }

  /** A transcript of answers issued together: every turn verifies as a proof (V2). */
  async transcript<Turn>(input: TranscriptInput<Turn>, issueMany: (turns: readonly Turn[]) => Promise<ProofBundle[]>): Promise<Obj> {
    if (input.turns.length === 0 || input.turns.length > MAX_TURNS) throw refuse(`a transcript has 1 to ${MAX_TURNS} turns`);
    const turns = await issueMany(input.turns);
    return issueTranscript(turns as unknown as Obj[], {
      service: this.names.service,
      ...(input.title !== undefined ? { title: input.title } : {}),
    });
  }

  /** A run evidence pack, signed under the autopilot context. */
  async run(input: RunInput): Promise<Obj> {
    const ts = this.ts();
    let bundle: Obj;
    try {
      bundle = issueRun(input.run, { model: input.model ?? `${this.names.service}-autopilot`, ts, created: ts }, this.keys('autopilot'), {
        service: this.names.service,
      });
    } catch (e) {
      throw refuse(`the run cannot be signed: ${e instanceof Error ? e.message : String(e)}`);
    }
    return this.checked(bundle, 'run', (b) => (b.receipt as Obj).answer_sha256);
  }

  /** An export archive, its manifest signed under the export context. */
  async export(input: ExportInput): Promise<Obj> {
    const ts = this.ts();
    let archive: Obj;
    try {
      archive = issueExport(
        input.conversations as Obj[],
        {
          model: input.model ?? `${this.names.service}-export`,
          ts,
          created: ts,
          ...(input.exported !== undefined ? { exported: input.exported } : {}),
        },
        this.keys('export'),
        { service: this.names.service },
      );
    } catch (e) {
      throw refuse(`the export cannot be signed: ${e instanceof Error ? e.message : String(e)}`);
    }
    return this.checked(archive, 'export', (b) => ((b.proof as Obj).receipt as Obj).answer_sha256);
  }

  private ts(): number {
    return Math.floor(this.now() / 1000);
  }

  private keys(role: 'autopilot' | 'export'): IssuerKeys {
    return {
      receipt: this.ring.get(role),
      random: (n: number) => new Uint8Array(randomBytes(n)),
      ...(this.crypto ? { crypto: this.crypto } : {}),
    };
  }

  /** Verified with the context's key pinned, then its signed hash appended. */
  private async checked(bundle: Obj, what: string, signedHash: (b: Obj) => unknown): Promise<Obj> {
    const v = await verifyBundle(bundle, { trustedKeys: this.pinned(), service: this.names.service });
    if (!v.verdict.overallOk || !v.signerRecognized) throw refuse(`the ${what} would not verify (${failing(v)}): nothing was signed`);
    const hex = signedHash(bundle);
    const hash = typeof hex === 'string' ? fromHex(hex, 32) : null;
    if (!hash) throw new Error(`the ${what} receipt carries no signed hash`);
    if (this.ledger) await this.ledger.append([hash]);
    return bundle;
  }
}
