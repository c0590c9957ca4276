// The log asks its witnesses (SVC_WITNESS_POLICY): each new checkpoint goes to every witness of the
// policy in parallel, with a consistency proof from the size that witness last cosigned (learnt
// from its answers; a 409 says it, and the request is made once more from there). Cosignatures that
// verify under the policy's witness keys are gathered; a checkpoint that meets the quorum is
// published with them, and the last one that did stays published until a newer one does.
import { readFileSync } from 'node:fs';
import { fromHex } from '@svc/core/primitives';
import type { Config } from '../config.js';
import {
  checkSignature,
  MAX_NOTE_SIGNATURES,
  formatAddCheckpoint,
  parseCheckpoint,
  parseNote,
  parsePolicy,
  parseTilePath,
  quorumMet,
  signatureLine,
  type Checkpoint,
  type Policy,
  type PolicyEntry,
  type TileId,
} from '@svc/core/tlog';
import { LedgerError } from '../ledger/errors.js';
import type { Logger } from '../log.js';
import { PEER_CAPS, textCapped } from '../net/peer.js';
import { pushEntries } from './mirroring.js';

export interface WitnessingLedger {
  /** The latest checkpoint, signed by the log alone; throws while withheld. */
  checkpoint(): Promise<string>;
  /** Consistency proof between two sizes (1 <= first <= second), hex. */
  consistency(first: number, second: number | undefined, signed: boolean): Promise<{ proof?: unknown }>;
  /** A tile or entry bundle (to push entries to a mirror among the witnesses); without it mirrors get none. */
  tile?(id: TileId): Promise<Uint8Array>;
}

export interface WitnessingStatus {
  /** Size of the latest checkpoint the log signed, and of the last one published with a quorum. */
  latestSize: number | null;
  publishedSize: number | null;
  /** Milliseconds since the latest checkpoint was first seen without being published; 0 when up to date. */
  lagMs: number;
  /** Cosignatures the last round gathered, of the witnesses the policy names. */
  cosigned: number;
  witnesses: number;
}

/** The witnesses a log asks: the policy's entries with a URL (one without is a second key of one of them). */
export function askedWitnesses(policy: Policy): number {
  return [...policy.witnesses.values()].filter((w) => w.url).length;
}

/** What a log serves while witnessed: the last checkpoint with a quorum, or why there is none (503). */
export async function publishedCheckpoint(ledger: Pick<WitnessingLedger, 'checkpoint'>, published: string | null): Promise<string> {
  // Rule 2 first: a withheld log publishes nothing, witnessed or not.
  await ledger.checkpoint();
  if (published === null) throw new LedgerError('unavailable', 'no checkpoint has met the witness quorum yet');
  return published;
}

// WF-WITNESSING
export class Witnessing {
  private published: { size: number; note: string } | null = null;
  private readonly sizes = new Map<string, number>();
  private lastSubmitted = '';
  private latestSize: number | null = null;
  private behindSince: number | null = null;
  private cosigned = 0;
  private running: Promise<void> | null = null;

  constructor(
    private readonly ledger: WitnessingLedger,
    private readonly policy: Policy,
    private readonly o: { log: Logger; timeoutMs: number; now?: () => number; fetch?: typeof fetch },
  ) {}

  private get now(): number {
    return (this.o.now ?? Date.now)();
  }

  status(): WitnessingStatus {
    return {
      latestSize: this.latestSize,
      publishedSize: this.published?.size ?? null,
      lagMs: this.behindSince === null ? 0 : this.now - this.behindSince,
      cosigned: this.cosigned,
      witnesses: askedWitnesses(this.policy),
    };
  }

  /** The last checkpoint published with a quorum (log and witness lines), if any. */
  publishedNote(): string | null {
    return this.published?.note ?? null;
  }

  /** The published checkpoint (log and witness lines), or why there is none (503). */
  checkpoint(): Promise<string> {
    return publishedCheckpoint(this.ledger, this.publishedNote());
  }

  /** One round, unless one is running: submit the latest checkpoint if it is new. */
  round(): Promise<void> {
    // A round that cannot read the log (a store closing, unavailable) ends and the next one tries
    // again: its callers run it from a timer, where a rejection would end the process.
    this.running ??= this.submitLatest()
      .catch((e: unknown) => this.o.log('witnessing_round_failed', { error: e instanceof Error ? e.message : String(e) }))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async submitLatest(): Promise<void> {
    let note: string;
    try {
      note = await this.ledger.checkpoint();
    } catch {
      return; // withheld or unavailable: nothing to ask anyone to cosign
    }
    if (note === this.lastSubmitted) return;
    const c = parseCheckpoint(parseNote(note).text);
    this.latestSize = c.size;
    if (this.behindSince === null && this.published?.size !== c.size) this.behindSince = this.now;
    const entries = [...this.policy.witnesses.entries()];
    const answers = await Promise.all(entries.map(([name, w]) => this.ask(name, w, note, c)));
    const lines = answers.flat();
    // ask() keeps only lines that verify under that witness's own key in the policy.
    const verified = new Set(entries.filter((_, i) => answers[i]!.length > 0).map(([, w]) => w.key.vkey));
    this.cosigned = verified.size;
    this.lastSubmitted = note;
    if (quorumMet(this.policy, verified)) {
      // A reader accepts at most MAX_NOTE_SIGNATURES lines: the log's own come first, then as many
      // cosignatures as fit (a policy may name more witnesses than that).
      const room = MAX_NOTE_SIGNATURES - parseNote(note).signatures.length;
      this.published = { size: c.size, note: note + lines.slice(0, Math.max(0, room)).join('') };
      this.behindSince = null;
      this.o.log('checkpoint_witnessed', { size: c.size, cosignatures: verified.size, witnesses: entries.length });
    } else {
      this.o.log('witness_quorum_missed', {
        size: c.size,
        cosignatures: verified.size,
        witnesses: entries.length,
        published_size: this.published?.size ?? null,
        lag_ms: this.status().lagMs,
      });
      // Asked again on the next round: a witness may be back.
      this.lastSubmitted = '';
    }
  }

  /**
   * A witness's answer, judged by the policy's keys under that witness's name: its asked key, and
   * any other key the policy lists for the same name without a URL (a second signature type, such
   * as the Ed25519 line the public witness network reads). Only a line that verifies is kept, one
   * per key; lines that fail, repeat, or that no policy key can check are dropped, so a witness
   * cannot make the published note fail a reader or overflow it. The cosignature counts only when
   * the asked key's line verifies; a witness that answers badly costs its own cosignature alone.
   */
  private verifiedLines(w: PolicyEntry, note: string, body: string, name: string): string[] {
    const text = parseNote(note).text;
    let sigs: ReturnType<typeof parseNote>['signatures'];
    try {
      sigs = parseNote(`${text}\n${body}`).signatures;
    } catch {
      this.o.log('witness_refused', { witness: name, status: 200, reason: 'the answer is not signature lines' });
      return [];
    }
    const keys = [w.key, ...[...this.policy.witnesses.values()].filter((o) => !o.url && o.key.name === w.key.name).map((o) => o.key)];
    const kept = keys.flatMap((k) => {
      const good = sigs.find(
        (s) => s.name === k.name && s.id === k.id && checkSignature(k.type, k.name, k.publicKey, text, s.signature, k.raw).ok,
      );
      return good ? [good] : [];
    });
    if (kept.length < sigs.length)
      this.o.log('witness_refused', {
        witness: name,
        status: 200,
        reason: 'cosignature lines that do not verify, repeat, or no policy key checks were dropped',
      });
    return kept[0] && kept[0].id === w.key.id ? kept.map(signatureLine) : [];
  }

  /**
   * A mirror's cosignature lines, once the entries it lacks are pushed (add-entries, from the next
   * entry it names), judged as a witness's are; none when the push fails or this log cannot read
   * its own tiles. The first push of a large log makes that round as long as the upload.
   */
  private async mirrored(name: string, w: PolicyEntry, note: string, c: Checkpoint): Promise<string[]> {
    const tile = this.ledger.tile?.bind(this.ledger);
    if (!tile) {
      this.o.log('mirror_not_pushed', { witness: name, reason: 'this log cannot read its own tiles here' });
      return [];
    }
    try {
      const read = (path: string) => {
        const id = parseTilePath(path);
        return id ? tile(id) : Promise.reject(new Error(`not a tile path: ${path}`));
      };
      const r = await pushEntries(
        { read, mirror: w.url!, timeoutMs: this.o.timeoutMs, ...(this.o.fetch ? { fetch: this.o.fetch } : {}) },
        c,
      );
      this.o.log('mirror_pushed', { witness: name, size: c.size, requests: r.requests });
      return this.verifiedLines(w, note, r.cosignatures, name);
    } catch (e) {
      this.o.log('mirror_push_failed', { witness: name, size: c.size, error: e instanceof Error ? e.message : String(e) });
      return [];
    }
  }

  /** The cosignature lines one witness gives (none when it refuses, fails or is away). */
  private async ask(name: string, w: PolicyEntry, note: string, c: Checkpoint): Promise<string[]> {
    if (!w.url) return [];
    const size = c.size;
    const url = `${w.url.replace(/\/+$/, '')}/add-checkpoint`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const old = Math.min(this.sizes.get(name) ?? 0, size);
      let proof: Uint8Array[] = [];
      if (old > 0 && old < size) {
        const r = await this.ledger.consistency(old, size, false);
        proof = (Array.isArray(r.proof) ? r.proof : []).map((h: unknown) => fromHex(h, 32) ?? new Uint8Array());
      }
      let res: Response;
      const deadline = AbortSignal.timeout(this.o.timeoutMs);
      try {
        res = await (this.o.fetch ?? fetch)(url, {
          method: 'POST',
          body: formatAddCheckpoint({ oldSize: old, proof, checkpoint: note }),
          signal: deadline,
        });
      } catch (e) {
        this.o.log('witness_unreachable', { witness: name, error: e instanceof Error ? e.message : String(e) });
        return [];
      }
      let body: string;
      try {
        body = await textCapped(res, PEER_CAPS.witness, url, deadline);
      } catch (e) {
        // Over the cap, or cut off by the deadline: that witness's answer counts for nothing this round.
        this.o.log('witness_refused', { witness: name, status: res.status, reason: e instanceof Error ? e.message : String(e) });
        return [];
      }
      if (res.status === 200) {
        this.sizes.set(name, size);
        // An empty 200 is a mirror's (c2sp.org/tlog-mirror: its pending checkpoint moved, nothing
        // signed): its cosignature comes once it holds the entries, which are pushed to it now.
        if (body === '') return this.mirrored(name, w, note, c);
        return this.verifiedLines(w, note, body, name);
      }
      if (res.status === 409 && /^(0|[1-9][0-9]{0,15})\n$/.test(body)) {
        const theirs = Number(body.trim());
        this.sizes.set(name, theirs);
        if (theirs > size) {
          // The witness has cosigned more of this log than the log has: a rollback or another history.
          this.o.log('witness_saw_larger_log', { witness: name, witness_size: theirs, size, note: 'possible split view or rollback' });
          return [];
        }
        continue;
      }
      // 422: the witness holds a checkpoint this one is not consistent with. Loudly: a split view.
      if (res.status === 422)
        this.o.log('witness_refused_inconsistent', {
          witness: name,
          size,
          old,
          reason: body.trim().slice(0, 200),
          note: 'possible split view',
        });
      else this.o.log('witness_refused', { witness: name, status: res.status, reason: body.trim().slice(0, 200) });
      return [];
    }
    return [];
  }
}

/**
 * Where an issuer finds the published checkpoint its `logged` answers wait for: with
 * SVC_WITNESS_POLICY, from witnessing rounds of its own (only a checkpoint that met the quorum);
 * else the log's own checkpoint. A server passes its served log instead (already witnessed).
 */
export function publishedCheckpoints(
  cfg: Pick<Config, 'witnessPolicy' | 'witnessTimeoutMs'>,
  ledger: WitnessingLedger,
  log: Logger,
): { checkpoint: () => Promise<string>; timeoutMs: number } {
  if (!cfg.witnessPolicy) return { checkpoint: () => ledger.checkpoint(), timeoutMs: 10_000 };
  let policy: Policy;
  try {
    policy = parsePolicy(readFileSync(cfg.witnessPolicy, 'utf8'));
  } catch (e) {
    throw new Error(`SVC_WITNESS_POLICY ${cfg.witnessPolicy}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const w = new Witnessing(ledger, policy, { log, timeoutMs: cfg.witnessTimeoutMs });
  return {
    checkpoint: async () => {
      await w.round();
      return w.checkpoint();
    },
    timeoutMs: cfg.witnessTimeoutMs * 3,
  };
}
