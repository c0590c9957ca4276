// `svc witness`: a tlog-witness (c2sp.org/tlog-witness) for the logs a tlog-policy file names. It
// cosigns a checkpoint only when it is consistent with the latest one it cosigned for that origin
// (ML-DSA-44 subtree/v1 and Ed25519 cosignature/v1, timestamped), persists that before answering,
// and serves the latest cosigned checkpoint per origin to monitors.
import { sha256Hex } from '@svc/core';
import { decideAddCheckpoint, noteSigner, type NoteSigner, type NoteVerifier, type Policy } from '@svc/core/tlog';
import { HttpError } from '../http/errors.js';
import type { AppRequest, AppResponse } from '../http/types.js';
import type { Keyring } from '../keys/keyring.js';
import type { Logger } from '../log.js';
import type { WitnessStore } from './store.js';

const TEXT = 'text/plain; charset=utf-8';

export interface WitnessOptions {
  /** The witness's key name (its identity in cosignature lines and policies). */
  name: string;
  policy: Policy;
  ring: Keyring;
  store: WitnessStore;
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
    this.signers = [noteSigner(o.name, o.ring.logKey('witness-mldsa44')), noteSigner(o.name, o.ring.logKey('witness-ed25519'))];
    // The logs it witnesses: each policy `log` line's key, under the origin its name gives.
    for (const l of o.policy.logs) {
      this.logs.set(l.key.name, [...(this.logs.get(l.key.name) ?? []), l.key]);
      this.byHash.set(sha256Hex(l.key.name), l.key.name);
    }
    this.now = o.now ?? Date.now;
  }

  /** The origins of the logs it witnesses. */
  get origins(): string[] {
    return [...this.logs.keys()];
  }

  vkeys(): string {
    return `${this.signers.map((s) => s.vkey).join('\n')}\n`;
  }

  /** POST add-checkpoint: the decision and its write are one transaction (tlog-witness's race). */
  addCheckpoint(body: Uint8Array): AppResponse {
    const now = this.now();
    const a = this.o.store.transact(
      (read) => decideAddCheckpoint(body, (origin) => this.logs.get(origin), read, this.signers, Math.max(1, Math.floor(now / 1000))),
      now,
    );
    if (a.status === 422) this.o.log('witness_refused_inconsistent', { origin: a.origin, reason: a.body.trim() });
    else if (a.status !== 200) this.o.log('witness_refused', { status: a.status, origin: a.origin ?? null });
    else this.o.log('witness_cosigned', { origin: a.origin, size: a.state.size });
    return {
      status: a.status,
      body: a.body,
      headers: { 'content-type': a.status === 200 ? TEXT : a.contentType, 'cache-control': 'no-store' },
    };
  }

  /** GET <sha256(origin) hex>/checkpoint: the latest cosigned checkpoint, for monitors. */
  checkpoint(originHash: string): AppResponse {
    const origin = this.byHash.get(originHash);
    const state = origin === undefined ? null : this.o.store.get(origin);
    if (!state) throw new HttpError('not_found', 'this witness has cosigned no checkpoint of that log');
    return { status: 200, body: state.checkpoint, headers: { 'content-type': TEXT, 'cache-control': 'public, max-age=2' } };
  }
}

/** The witness's routes under `prefix` (`/` alone, `/api/transparency/witness/` inside svc serve). */
export function witnessRoutes(w: Witness, prefix: string): (req: AppRequest) => Promise<AppResponse> | null {
  return (req) => {
    if (!req.path.startsWith(prefix)) return null;
    const rest = req.path.slice(prefix.length);
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const only = (m: 'GET' | 'POST', run: () => Promise<AppResponse> | AppResponse): Promise<AppResponse> => {
      if (method !== m) {
        const e = new HttpError('method_not_allowed', `${req.method} is not allowed on ${req.path}`);
        return Promise.resolve({ status: 405, body: e.toJSON(), headers: { allow: m === 'GET' ? 'GET, HEAD' : 'POST' } });
      }
      return Promise.resolve(run());
    };
    if (rest === 'add-checkpoint') return only('POST', async () => w.addCheckpoint(await req.body()));
    if (rest === 'vkeys')
      return only('GET', () => ({
        status: 200,
        body: w.vkeys(),
        headers: { 'content-type': TEXT, 'cache-control': 'public, max-age=3600' },
      }));
    const m = /^([0-9a-f]{64})\/checkpoint$/.exec(rest);
    if (m) return only('GET', () => w.checkpoint(m[1]!));
    return null;
  };
}
