// Issuing signed answers with the keyring and appending their hashes to the ledger. Safe while the
// server runs, and from any number of processes: the store sequences one writer at a time.
// Answers issued together (one issueMany, or issue() calls within the ledger's batch interval) are
// appended in one batch sealed by one signed head; a bundle is returned only once its leaf is
// committed, so what a caller holds is always in the log.
import { randomBytes } from 'node:crypto';
import type { CryptoBackend, FramingFlags, Names } from '@svc/core';
import { fromHex, textSha256, toBase64Url } from '@svc/core/primitives';
import { issueProof, type EnvelopeFormat, type EnvelopeMaker, type ProofBundle } from '@svc/core/issue';
import { envelopeMaker } from '@svc/core/envelope';
import { formatTlogProof, parseCheckpoint, parseNote } from '@svc/core/tlog';
import { LedgerError } from '../ledger/errors.js';
import type { Keyring } from '../keys/keyring.js';
import type { LedgerApi } from '../ledger/api.js';
import { answerStatement, type ScittService } from '../scitt/service.js';
import { type ExportInput, KindIssuer, type RunInput, type TranscriptInput } from './kinds.js';

/**
 * One answer to sign: its text, and what `svc issue` takes beside it.
 *
 * @example
 * ```ts
 * const input: IssueInput = { answer: 'Paris.', prompt: 'Capital of France?', model: 'gpt-x', envelopes: ['jws'] };
 * ```
 */
export interface IssueInput {
  answer: string;
  /** The question; bound by the receipt's prompt hash (entire-input, or current-message with framing). */
  prompt?: string;
  model?: string;
  /** How the question was put (system prompt, voice, attachment, earlier turns): binds it as current-message. */
  framing?: FramingFlags;
  governance_flag?: string;
  /** Whether a council grounded the answer; false unless said (a receipt never claims one the caller did not state). */
  council_grounded?: boolean;
  /** JWS and/or COSE envelopes beside the receipt; the issuer's default when absent. */
  envelopes?: readonly EnvelopeFormat[];
  /** Wait for a published checkpoint covering the answer and embed its c2sp.org/tlog-proof (`tlogProof`). */
  logged?: boolean;
  /** Register the service's SCITT Signed Statement about the answer and embed the Transparent Statement (`scitt`). */
  scitt?: boolean;
  /** `message`: `answer` is a message's canonical text (tool calls, a refusal, a cut; wire-format s.15). */
  answerForm?: 'message';
  /** What the request put before the model beyond its messages: signed by digest, carried in the bundle. */
  request?: Record<string, unknown>;
}

/** What an issuer needs of the ledger: appending, and the reads that prove an answer was logged. */
export type IssuerLedger = Pick<LedgerApi, 'append' | 'inclusion'>;

export interface IssuerOptions {
  slhDiversity?: boolean;
  bridge?: boolean;
  now?: () => number;
  /** Signs ML-DSA-87 and SLH-DSA natively where present (see crypto/node.ts). */
  crypto?: CryptoBackend;
  /**
   * Where `logged` answers find the published checkpoint (witnessed, with a witness policy), and
   * how long they wait for one that covers them. Without it `logged` is refused.
   */
  logged?: { checkpoint: () => Promise<string>; timeoutMs: number };
  /** The default envelopes of each receipt (ML-DSA-87, and Ed25519 with the envelope key). */
  envelopes?: readonly EnvelopeFormat[];
  /** The log's SCITT service, for answers asking for `scitt`; without it `scitt` is refused. */
  scitt?: { service: ScittService; timeoutMs: number };
  /**
   * Where the bundles are signed, when not on this thread (issuing/signers.ts: threads holding the
   * same keys). Given the answers' signing members only; returns their bundles in order.
   */
  signer?: (inputs: readonly IssueInput[], owner?: string) => Promise<ProofBundle[]>;
}

export class Issuer {
  constructor(
    private readonly ring: Keyring,
    private readonly names: Names,
    private readonly ledger: IssuerLedger | null,
    private readonly opts: IssuerOptions = {},
  ) {}

  // One maker per set of formats asked for, made once (the Ed25519 key is expanded once).
  private readonly makers = new Map<string, EnvelopeMaker>();

  private envelopesFor(formats: readonly EnvelopeFormat[] | undefined): EnvelopeMaker | null {
    const f = formats ?? this.opts.envelopes ?? [];
    if (f.length === 0) return null;
    const key = [...f].sort().join(',');
    let m = this.makers.get(key);
    if (!m) {
      const seed = this.ring.envelopeSeed();
      m = envelopeMaker({ formats: f, ...(seed ? { ed25519: seed } : {}) });
      this.makers.set(key, m);
    }
    return m;
  }

  private kindIssuer: KindIssuer | null = null;
  private get kinds(): KindIssuer {
    if (!this.kindIssuer) this.kindIssuer = new KindIssuer(this.ring, this.names, this.ledger, this.opts.now ?? Date.now, this.opts.crypto);
    return this.kindIssuer;
  }

  /** Issue a transcript: its turns signed and logged as answers issued together. */
  issueTranscript(input: TranscriptInput<IssueInput>): Promise<Record<string, unknown>> {
    return this.kinds.transcript(input, (turns) => this.issueMany(turns));
  }

  /** Sign an autopilot run's evidence pack under the autopilot context and log its hash. */
  issueRun(input: RunInput): Promise<Record<string, unknown>> {
    return this.kinds.run(input);
  }

  /** Sign a conversation export under the export context and log its manifest's hash. */
  issueExport(input: ExportInput): Promise<Record<string, unknown>> {
    return this.kinds.export(input);
  }

  /** Sign one answer; when a ledger is attached its hash is appended under a signed head first. */
  async issue(input: IssueInput): Promise<ProofBundle> {
    return (await this.issueMany([input]))[0]!;
  }

  /**
   * Sign a batch; the whole batch is one append sealed by one signed head. `owner` (a token's name)
   * is whose turn it waits in for the signing threads: one owner's batches cannot starve another's.
   */
  async issueMany(inputs: readonly IssueInput[], owner?: string): Promise<ProofBundle[]> {
    // Refused before anything is signed: a caller never holds a signature the log does not.
    if (!this.ledger && inputs.some((i) => i.logged || i.scitt))
      throw new LedgerError('invalid_request', 'logged and scitt need the ledger (SVC_LEDGER is off)');
    if (inputs.some((i) => i.logged) && !this.opts.logged)
      throw new LedgerError('invalid_request', 'this issuer cannot wait for published checkpoints');
    if (inputs.some((i) => i.scitt) && !this.opts.scitt) throw new LedgerError('invalid_request', 'this issuer has no SCITT service');
    const bundles = this.opts.signer
      ? await this.opts.signer(
          inputs.map(({ logged: _l, scitt: _s, ...signed }) => signed),
          owner,
        )
      : this.sign(inputs);
    // issueProof refused any answer without an exact UTF-8 form, so textSha256 is never null here.
    const hashes = inputs.map((i) => textSha256(i.answer)!);
    if (!this.ledger) return bundles;
    const appended = await this.ledger.append(hashes);
    const logged = inputs.flatMap((i, k) => (i.logged ? [k] : []));
    if (logged.length)
      await this.embedLogging(
        logged.map((k) => bundles[k]!),
        logged.map((k) => hashes[k]!),
        appended.firstIndex + hashes.length,
      );
    const scitt = this.opts.scitt;
    if (scitt)
      await Promise.all(
        inputs.map(async (i, k) => {
          if (!i.scitt) return;
          // The Transparent Statement: our Signed Statement about this answer, registered in the same
          // log, with a receipt per log key for the published (witnessed) checkpoint that covers it.
          const statement = answerStatement(this.ring, this.names, i.answer, bundles[k]!.receipt.ts);
          const transparent = await scitt.service.transparent(statement, scitt.timeoutMs);
          // Unsigned like tlogProof: verifyBundle checks it with scittChecker.
          (bundles[k] as ProofBundle & { scitt?: string }).scitt = toBase64Url(transparent);
        }),
      );
    return bundles;
  }

  /** The bundles of answers signed on this thread, at one time. */
  sign(inputs: readonly IssueInput[]): ProofBundle[] {
    const ts = Math.floor((this.opts.now ?? Date.now)() / 1000);
    const random = (n: number) => new Uint8Array(randomBytes(n));
    return inputs.map((i) => {
      const envelopes = this.envelopesFor(i.envelopes);
      return issueProof(
        {
          answer: i.answer,
          model: i.model ?? `${this.names.service}-council`,
          ts,
          created: ts,
          ...(i.prompt !== undefined ? { prompt: i.prompt } : {}),
          ...(i.framing ? { framing: i.framing } : {}),
          ...(i.answerForm ? { answerForm: i.answerForm } : {}),
          ...(i.request ? { request: i.request } : {}),
          ...(i.governance_flag !== undefined ? { governance_flag: i.governance_flag } : {}),
          // Never a council the caller did not state: a receipt without the member reads as grounded.
          council_grounded: i.council_grounded ?? false,
        },
        {
          receipt: this.ring.get('answer'),
          ...(this.opts.slhDiversity ? { slh: this.ring.get('slh-diversity') } : {}),
          ...(this.opts.bridge !== false && this.ring.has('bridge-primary') && this.ring.has('bridge-cosign')
            ? { bridge: { primary: this.ring.get('bridge-primary'), cosign: this.ring.get('bridge-cosign') } }
            : {}),
          random,
          ...(this.opts.crypto ? { crypto: this.opts.crypto } : {}),
          ...(envelopes ? { envelopes } : {}),
        },
        { service: this.names.service },
      );
    });
  }

  private async embedLogging(bundles: ProofBundle[], hashes: Uint8Array[], needed: number): Promise<void> {
    const { checkpoint, timeoutMs } = this.opts.logged!;
    const now = this.opts.now ?? Date.now;
    const deadline = now() + timeoutMs;
    let note: string | null = null;
    let lastError = 'no checkpoint yet';
    while (now() < deadline) {
      try {
        const n = await checkpoint();
        if (parseCheckpoint(parseNote(n).text).size >= needed) {
          note = n;
          break;
        }
        lastError = 'the published checkpoint does not cover the answer yet';
      } catch (e) {
        lastError = e instanceof Error ? e.message : String(e);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!note)
      throw new LedgerError(
        'unavailable',
        `the answer was appended, but no published checkpoint covered it within ${timeoutMs} ms (${lastError})`,
      );
    const size = parseCheckpoint(parseNote(note).text).size;
    for (const [i, b] of bundles.entries()) {
      const r = await this.ledger!.inclusion({ data: hashes[i]!, treeSize: size });
      if (!r.found) throw new LedgerError('unavailable', 'the appended answer is not in the log');
      (b as ProofBundle & { tlogProof?: string }).tlogProof = formatTlogProof({
        index: r.index!,
        proof: r.proof!.map((h) => fromHex(h, 32)!),
        checkpoint: note,
      });
    }
  }
}
