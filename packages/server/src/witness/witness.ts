// `svc witness`: a tlog-witness (c2sp.org/tlog-witness) for the logs a tlog-policy file names. It
// cosigns a checkpoint only when it is consistent with the latest one it cosigned for that origin
// (ML-DSA-44 subtree/v1 and Ed25519 cosignature/v1, timestamped), persists that before answering,
// serves the latest cosigned checkpoint per origin to monitors, and cosigns subtrees of checkpoints
// it cosigned (sign-subtree, ML-DSA-44 subtree/v1 with timestamp 0).
import { decideSignSubtree, type NoteSigner, type Policy } from '@svc/core/tlog';
import type { Keyring } from '../keys/keyring.js';
import type { Logger } from '../log.js';
import { AddCheckpointQueue, TEXT, cosigner, vkeysText, type Cosigner, type WitnessReply } from './cosigner.js';
import type { WitnessStates } from './store.js';

export type { WitnessReply } from './cosigner.js';

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
  private readonly c: Cosigner;
  private readonly queue: AddCheckpointQueue;

  constructor(private readonly o: WitnessOptions) {
    this.c = cosigner(o.name, o.policy, o.ring, o.log, 'witness');
    this.signers = this.c.signers;
    const transact: WitnessStates['transactAll'] = (decides, now, origins) => o.store.transactAll(decides, now, origins);
    this.queue = new AddCheckpointQueue({
      c: this.c,
      signers: this.signers,
      transact,
      log: o.log,
      now: o.now ?? Date.now,
      event: 'witness',
    });
  }

  /** The origins of the logs it witnesses. */
  get origins(): string[] {
    return [...this.c.logs.keys()];
  }

  vkeys(): string {
    return vkeysText(this.c);
  }

  /** POST add-checkpoint: cosigned, and the new state written, before the answer. */
  addCheckpoint(body: Uint8Array): Promise<WitnessReply> {
    return this.queue.submit(body);
  }

  /**
   * POST sign-subtree: stateless (the checkpoint must carry this witness's own cosignature, which it
   * gave only to checkpoints consistent with all it had seen), so nothing is stored.
   */
  signSubtree(body: Uint8Array): WitnessReply {
    let a: ReturnType<typeof decideSignSubtree>;
    try {
      a = decideSignSubtree(body, (origin) => this.c.logs.has(origin), this.signers);
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
    const origin = this.c.byHash.get(originHash);
    const state = origin === undefined ? null : await this.o.store.get(origin);
    return state ? state.checkpoint : null;
  }
}
