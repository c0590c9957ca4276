// `svc witness`: a tlog-witness (c2sp.org/tlog-witness) for the logs a tlog-policy file names. It
// cosigns a checkpoint only when it is consistent with the latest one it cosigned for that origin
// (ML-DSA-44 subtree/v1 and Ed25519 cosignature/v1, timestamped), persists that before answering,
// serves the latest cosigned checkpoint per origin to monitors, and cosigns subtrees of checkpoints
// it cosigned (sign-subtree, ML-DSA-44 subtree/v1 with timestamp 0).
import { sha256Hex, utf8 } from '@svc/core/primitives';
import {
  decideAddCheckpoint,
  decideSignSubtree,
  noteSigner,
  parseAddCheckpoint,
  parseCheckpoint,
  parseNote,
  type NoteSigner,
  type NoteVerifier,
  type Policy,
  type WitnessAnswer,
} from '@svc/core/tlog';
import { nativeEd25519Sign, nativeMlDsa44, nativeNoteVerify } from '../crypto/node.js';
import type { Keyring } from '../keys/keyring.js';
import { LedgerError } from '../ledger/errors.js';
import type { Logger } from '../log.js';
import type { WitnessStates } from './store.js';

const TEXT = 'text/plain; charset=utf-8';

/** The tlog-witness protocol's answer to add-checkpoint: its status, body and media type. */
export interface WitnessReply {
  status: number;
  body: string;
  contentType: string;
}

export interface WitnessOptions {
  /** The witness's key name (its identity in cosignature lines and policies). */
  name: string;
  policy: Policy;
  ring: Keyring;
  store: WitnessStates;
  log: Logger;
  /** Milliseconds; cosignature timestamps are its whole seconds. */
  now?: () => number;
}

export class Witness {
  readonly signers: NoteSigner[];
  private readonly logs = new Map<string, NoteVerifier[]>();
  private readonly byHash = new Map<string, string>();
  private readonly now: () => number;

  constructor(private readonly o: WitnessOptions) {
    const k44 = o.ring.logKey('witness-mldsa44');
    const kEd = o.ring.logKey('witness-ed25519');
    // OpenSSL where the runtime has it (ML-DSA-44 on Node >= 24, Ed25519 everywhere): signing and
    // verifying are the witness's whole cost per request. The checks are the core's, and the
    // signatures are checked against noble before use.
    const native = nativeMlDsa44(k44.secretKey, k44.publicKey);
    const nativeEd = nativeEd25519Sign(kEd.secretKey);
    this.signers = [noteSigner(o.name, k44, native ?? undefined), noteSigner(o.name, kEd, nativeEd ?? undefined)];
    // The logs it witnesses: each policy `log` line's key, under the origin its name gives.
    let verifiedNatively = 0;
    for (const l of o.policy.logs) {
      // An origin is a key name the cosignature formats encode in one byte (subtree/v1): a longer
      // one could never be cosigned, and is refused here, with its reason, rather than per request.
      if (utf8(l.key.name).length > 255)
        throw new Error(`the witness policy names a log whose origin is over 255 bytes (${JSON.stringify(l.key.name.slice(0, 40))}...)`);
      const raw = nativeNoteVerify(l.key.type, l.key.publicKey);
      if (raw) verifiedNatively++;
      const key = raw ? { ...l.key, raw } : l.key;
      this.logs.set(l.key.name, [...(this.logs.get(l.key.name) ?? []), key]);
      this.byHash.set(sha256Hex(l.key.name), l.key.name);
    }
    this.now = o.now ?? Date.now;
    o.log('witness_crypto', {
      'ML-DSA-44 sign': native ? 'node:crypto' : 'noble',
      'Ed25519 sign': nativeEd ? 'node:crypto' : 'noble',
      'log keys verified natively': `${verifiedNatively}/${o.policy.logs.length}`,
    });
  }

  /** The origins of the logs it witnesses. */
  get origins(): string[] {
    return [...this.logs.keys()];
  }

  vkeys(): string {
    return `${this.signers.map((s) => s.vkey).join('\n')}\n`;
  }

  private queue: { body: Uint8Array; done: (r: WitnessReply) => void; fail: (e: unknown) => void }[] = [];

  /**
   * POST add-checkpoint: decided and written in one transaction with the requests that arrived in
   * the same turn (tlog-witness's race cannot happen: each decision reads what the one before wrote).
   */
  addCheckpoint(body: Uint8Array): Promise<WitnessReply> {
    return new Promise((done, fail) => {
      this.queue.push({ body, done, fail });
      if (this.queue.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    const now = this.now();
    const seconds = Math.max(1, Math.floor(now / 1000));
    let answers: ReturnType<typeof decideAddCheckpoint>[];
    try {
      answers = await this.o.store.transactAll(
        batch.map((r) => (read): WitnessAnswer => {
          // One request's failure is its own answer, never its turn's: the others commit.
          try {
            return decideAddCheckpoint(r.body, (origin) => this.logs.get(origin), read, this.signers, seconds);
          } catch (e) {
            this.o.log('witness_decide_error', { error: e instanceof Error ? e.message : String(e) });
            return { status: 400, body: 'this checkpoint cannot be cosigned\n', contentType: 'text/plain; charset=utf-8' };
          }
        }),
        now,
        batch.map((r) => originOf(r.body)).filter((o): o is string => o !== null),
      );
    } catch (e) {
      this.o.log('witness_store_error', { error: e instanceof Error ? e.message : String(e) });
      for (const r of batch) r.fail(new LedgerError('unavailable', 'the witness could not record the checkpoint; retry'));
      return;
    }
    for (const [i, a] of answers.entries()) {
      if (a.status === 422) this.o.log('witness_refused_inconsistent', { origin: a.origin, reason: a.body.trim() });
      else if (a.status !== 200) this.o.log('witness_refused', { status: a.status, origin: a.origin ?? null });
      else this.o.log('witness_cosigned', { origin: a.origin, size: a.state.size });
      batch[i]!.done({ status: a.status, body: a.body, contentType: a.status === 200 ? TEXT : a.contentType });
    }
  }

  /**
   * POST sign-subtree: stateless (the checkpoint must carry this witness's own cosignature, which it
   * gave only to checkpoints consistent with all it had seen), so nothing is stored.
   */
  signSubtree(body: Uint8Array): WitnessReply {
    let a: ReturnType<typeof decideSignSubtree>;
    try {
      a = decideSignSubtree(body, (origin) => this.logs.has(origin), this.signers);
    } catch (e) {
      this.o.log('witness_decide_error', { error: e instanceof Error ? e.message : String(e) });
      return { status: 400, body: 'this subtree cannot be cosigned\n', contentType: TEXT };
    }
    if (a.status === 200) this.o.log('witness_signed_subtree', { origin: a.origin, start: a.subtree!.start, end: a.subtree!.end });
    else this.o.log('witness_refused_subtree', { status: a.status, origin: a.origin ?? null });
    return { status: a.status, body: a.body, contentType: TEXT };
  }

  /** The latest checkpoint cosigned for the log whose origin hashes to `originHash`, if any. */
  async checkpoint(originHash: string): Promise<string | null> {
    const origin = this.byHash.get(originHash);
    const state = origin === undefined ? null : await this.o.store.get(origin);
    return state ? state.checkpoint : null;
  }
}

/** The origin a request names, or null when it does not parse (its answer is a 400 then). */
function originOf(body: Uint8Array): string | null {
  try {
    return parseCheckpoint(parseNote(parseAddCheckpoint(body).checkpoint).text).origin;
  } catch {
    return null;
  }
}
