// Issuing signed answers with the keyring and appending their hashes to the ledger. Safe while the
// server runs, and from any number of processes: the store sequences one writer at a time.
import { randomBytes } from 'node:crypto';
import {
  fromHex,
  issueProof,
  textSha256,
  type CryptoBackend,
  type EnvelopeFormat,
  type EnvelopeMaker,
  type FramingFlags,
  type Names,
  type ProofBundle,
} from '@svc/core';
import { envelopeMaker } from '@svc/core/envelope';
import { formatTlogProof, parseCheckpoint, parseNote } from '@svc/core/tlog';
import { LedgerError } from './ledger/errors.js';
import type { Keyring } from './keys/keyring.js';
import type { Ledger } from './ledger/ledger.js';

export interface IssueInput {
  answer: string;
  prompt?: string;
  model?: string;
  framing?: FramingFlags;
  governance_flag?: string;
  council_grounded?: boolean;
}

export interface IssuerOptions {
  slhDiversity?: boolean;
  bridge?: boolean;
  now?: () => number;
  /** Signs ML-DSA-87 and SLH-DSA natively where present (see crypto/node.ts). */
  crypto?: CryptoBackend;
  /**
   * Wait until each answer's leaf is in a published checkpoint (witnessed, with a witness policy)
   * and embed a c2sp.org/tlog-proof of it as `tlogProof`. `checkpoint` gives the published one.
   */
  logged?: { checkpoint: () => Promise<string>; timeoutMs: number };
  /** JWS and/or COSE envelopes beside each receipt (ML-DSA-87, and Ed25519 with the envelope key). */
  envelopes?: readonly EnvelopeFormat[];
}

export class Issuer {
  constructor(
    private readonly ring: Keyring,
    private readonly names: Names,
    private readonly ledger: Ledger | null,
    private readonly opts: IssuerOptions = {},
  ) {
    const seed = ring.envelopeSeed();
    this.envelopes = opts.envelopes?.length ? envelopeMaker({ formats: opts.envelopes, ...(seed ? { ed25519: seed } : {}) }) : null;
  }

  private readonly envelopes: EnvelopeMaker | null;

  /** Sign one answer; when a ledger is attached its hash is appended under a new signed head first. */
  async issue(input: IssueInput): Promise<ProofBundle> {
    return (await this.issueMany([input]))[0]!;
  }

  /** Sign a batch; the whole batch is one append sealed by one signed head. */
  async issueMany(inputs: IssueInput[]): Promise<ProofBundle[]> {
    const now = (this.opts.now ?? Date.now)();
    const ts = Math.floor(now / 1000);
    const random = (n: number) => new Uint8Array(randomBytes(n));
    const bundles = inputs.map((i) =>
      issueProof(
        {
          answer: i.answer,
          model: i.model ?? `${this.names.service}-council`,
          ts,
          created: ts,
          ...(i.prompt !== undefined ? { prompt: i.prompt } : {}),
          ...(i.framing ? { framing: i.framing } : {}),
          ...(i.governance_flag !== undefined ? { governance_flag: i.governance_flag } : {}),
          ...(i.council_grounded !== undefined ? { council_grounded: i.council_grounded } : {}),
        },
        {
          receipt: this.ring.get('answer'),
          ...(this.opts.slhDiversity ? { slh: this.ring.get('slh-diversity') } : {}),
          ...(this.opts.bridge !== false && this.ring.has('bridge-primary') && this.ring.has('bridge-cosign')
            ? { bridge: { primary: this.ring.get('bridge-primary'), cosign: this.ring.get('bridge-cosign') } }
            : {}),
          random,
          ...(this.opts.crypto ? { crypto: this.opts.crypto } : {}),
          ...(this.envelopes ? { envelopes: this.envelopes } : {}),
        },
        { service: this.names.service },
      ),
    );
    // issueProof refused any answer without an exact UTF-8 form, so textSha256 is never null here.
    const hashes = inputs.map((i) => textSha256(i.answer)!);
    const appended = await this.ledger?.append(hashes);
    if (this.opts.logged && this.ledger && appended) await this.embedLogging(bundles, hashes, appended.firstIndex + hashes.length);
    return bundles;
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
