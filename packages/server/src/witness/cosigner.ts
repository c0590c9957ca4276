// What a witness and a mirror share as cosigners (c2sp.org/tlog-cosignature): their two keys, the
// logs of their policy with the keys trusted for each, and the add-checkpoint queue that decides
// the requests of one turn in one transaction. They differ in what a decision signs: a witness
// cosigns the checkpoint, a mirror only keeps it as pending (its cosignature waits for the entries).
import { sha256Hex, utf8 } from '@svc/core/primitives';
import {
  decideAddCheckpoint,
  noteSigner,
  parseAddCheckpoint,
  parseCheckpoint,
  parseNote,
  type NoteSigner,
  type NoteVerifier,
  type Policy,
  type WitnessAnswer,
  type WitnessState,
} from '@svc/core/tlog';
import { nativeEd25519Sign, nativeMlDsa44, nativeNoteVerify } from '../crypto/node.js';
import type { Keyring } from '../keys/keyring.js';
import { LedgerError } from '../ledger/errors.js';
import type { Logger } from '../log.js';

export const TEXT = 'text/plain; charset=utf-8';

/** A tlog-witness or tlog-mirror answer: its status, body and media type. */
export interface WitnessReply {
  status: number;
  body: string;
  contentType: string;
}

/** A cosigner's keys and the logs it accepts checkpoints of. */
export interface Cosigner {
  signers: NoteSigner[];
  /** The keys trusted for each origin of the policy. */
  logs: Map<string, NoteVerifier[]>;
  /** Origin by the lowercase hex SHA-256 of it (the monitoring prefix's path). */
  byHash: Map<string, string>;
}

/** A cosigner's verifier keys, one per line (its `GET /vkeys`). */
export function vkeysText(c: Cosigner): string {
  return `${c.signers.map((s) => s.vkey).join('\n')}\n`;
}

/** The cosigner of `name` with the ring's cosigning keys, for the logs of `policy`. */
export function cosigner(name: string, policy: Policy, ring: Keyring, log: Logger, role: 'witness' | 'mirror'): Cosigner {
  const k44 = ring.logKey('witness-mldsa44');
  const kEd = ring.logKey('witness-ed25519');
  // OpenSSL where the runtime has it (ML-DSA-44 on Node >= 24, Ed25519 everywhere): signing and
  // verifying are a cosigner's whole cost per request. The checks are the core's, and the
  // signatures are checked against noble before use.
  const native = nativeMlDsa44(k44.secretKey, k44.publicKey);
  const nativeEd = nativeEd25519Sign(kEd.secretKey);
  const signers = [noteSigner(name, k44, native ?? undefined), noteSigner(name, kEd, nativeEd ?? undefined)];
  const logs = new Map<string, NoteVerifier[]>();
  const byHash = new Map<string, string>();
  let verifiedNatively = 0;
  for (const l of policy.logs) {
    // An origin is a key name the cosignature formats encode in one byte (subtree/v1): a longer
    // one could never be cosigned, and is refused here, with its reason, rather than per request.
    if (utf8(l.key.name).length > 255)
      throw new Error(`the ${role} policy names a log whose origin is over 255 bytes (${JSON.stringify(l.key.name.slice(0, 40))}...)`);
    const raw = nativeNoteVerify(l.key.type, l.key.publicKey);
    if (raw) verifiedNatively++;
    logs.set(l.key.name, [...(logs.get(l.key.name) ?? []), raw ? { ...l.key, raw } : l.key]);
    byHash.set(sha256Hex(l.key.name), l.key.name);
  }
  log(`${role}_crypto`, {
    'ML-DSA-44 sign': native ? 'node:crypto' : 'noble',
    'Ed25519 sign': nativeEd ? 'node:crypto' : 'noble',
    'log keys verified natively': `${verifiedNatively}/${policy.logs.length}`,
  });
  return { signers, logs, byHash };
}

/** Runs add-checkpoint decisions against stored states, in order, atomically (a store's transactAll). */
export type Transact = <T extends { origin?: string; state?: WitnessState }>(
  decides: ((read: (origin: string) => WitnessState | null) => T)[],
  now: number,
  origins: readonly string[],
) => T[] | Promise<T[]>;

/**
 * add-checkpoint, decided and written in one transaction with the requests that arrived in the
 * same turn (tlog-witness's race cannot happen: each decision reads what the one before wrote).
 * `signers` empty: the decision keeps the checkpoint without cosigning it (a mirror's pending one).
 */
export class AddCheckpointQueue {
  private queue: { body: Uint8Array; done: (r: WitnessReply) => void; fail: (e: unknown) => void }[] = [];

  constructor(
    private readonly o: { c: Cosigner; signers: readonly NoteSigner[]; transact: Transact; log: Logger; now: () => number; event: string },
  ) {}

  submit(body: Uint8Array): Promise<WitnessReply> {
    return new Promise((done, fail) => {
      this.queue.push({ body, done, fail });
      if (this.queue.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const { c, log, event } = this.o;
    const batch = this.queue;
    this.queue = [];
    const now = this.o.now();
    const seconds = Math.max(1, Math.floor(now / 1000));
    let answers: WitnessAnswer[];
    try {
      answers = await this.o.transact(
        batch.map((r) => (read): WitnessAnswer => {
          // One request's failure is its own answer, never its turn's: the others commit.
          try {
            return decideAddCheckpoint(r.body, (origin) => c.logs.get(origin), read, this.o.signers, seconds);
          } catch (e) {
            log(`${event}_decide_error`, { error: e instanceof Error ? e.message : String(e) });
            return { status: 400, body: 'this checkpoint cannot be accepted\n', contentType: TEXT };
          }
        }),
        now,
        batch.map((r) => originOf(r.body)).filter((o): o is string => o !== null),
      );
    } catch (e) {
      log(`${event}_store_error`, { error: e instanceof Error ? e.message : String(e) });
      for (const r of batch) r.fail(new LedgerError('unavailable', 'the checkpoint could not be recorded; retry'));
      return;
    }
    for (const [i, a] of answers.entries()) {
      if (a.status === 422) log(`${event}_refused_inconsistent`, { origin: a.origin, reason: a.body.trim() });
      else if (a.status !== 200) log(`${event}_refused`, { status: a.status, origin: a.origin ?? null });
      else log(`${event}_${this.o.signers.length > 0 ? 'cosigned' : 'pending'}`, { origin: a.origin, size: a.state.size });
      batch[i]!.done({ status: a.status, body: a.body, contentType: a.status === 200 ? TEXT : a.contentType });
    }
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
