// The ledger's write side: appends queue up and are integrated in batches, each sealed by one
// signed head inside the store's transaction, so an append is acknowledged only once it is durable
// and signed. No head is signed while the log is withheld, or before the start check has passed
// here (S2).
import type { CryptoBackend, Names } from '@svc/core';
import { toHex, type KeyPair } from '@svc/core/primitives';
import { integrate } from '@svc/core/merkle';
import { signTreeHead } from '@svc/core/issue';
import { nativeHasher } from './hasher.js';
import { LedgerError } from './errors.js';
import { validHead } from './audit.js';
import { guard, type AuditGate } from './gate.js';
import type { HighWater } from './high-water.js';
import { Sequencer, type Appended } from './sequencer.js';
import type { HeadRow, LedgerStore, NewHead, Presealed, Seal } from './store.js';

// Batches up to this many leaves are hashed and signed on this thread before the transaction (a
// few milliseconds), so the store commits them in one crossing; larger ones are hashed by the
// writer thread and sealed in between, as before, to keep this thread free under load.
const PRESEAL_MAX = 1024;

export interface WriterOptions {
  store: LedgerStore;
  names: Names;
  log: string;
  sthKey: KeyPair;
  highWater: HighWater;
  now: () => number;
  /** Signs tree heads natively where present; noble otherwise. Must be synchronous. */
  crypto?: CryptoBackend;
  /** How long appends gather before a batch is integrated under one head (ms; 0: at the next turn). */
  batchMs?: number;
  /** The most leaves one batch takes. */
  maxBatch?: number;
}

export class LedgerWriter {
  private readonly sequencer: Sequencer;
  /** The latest head as this process knows it: undefined until read, null for none. */
  private lastHead: HeadRow | null | undefined = undefined;

  constructor(
    private readonly o: WriterOptions,
    private readonly gate: AuditGate,
  ) {
    this.sequencer = new Sequencer((batch) => this.integrate(batch), { batchMs: o.batchMs ?? 0, maxBatch: o.maxBatch });
  }

  /**
   * Sign the empty tree once, so a fresh log publishes a head from the start. A log with heads but
   * no high-water mark yet (made before high-water files existed) records its latest head as the high-water mark.
   */
  async init(): Promise<void> {
    await guard(async () => {
      const store = this.o.store;
      // A damaged high-water mark is a finding of the audit (unverifiable), not a reason to stop serving.
      let recorded: unknown = 'damaged';
      try {
        recorded = this.o.highWater.read();
      } catch {
        // reported by the audit
      }
      if (recorded === null && (await store.headCount()) > 0) {
        const latest = (await store.latestHeads(1))[0]!;
        this.o.highWater.advance({ tree_size: latest.tree_size, root_hash: latest.root_hash });
      }
      if ((await this.gate.checked()) === null && (await store.headCount()) === 0 && (await store.size()) === 0) {
        const signed = this.append([]);
        await this.flush();
        await signed;
      }
    });
  }

  /**
   * Append leaf entries (32 bytes each). Resolves once the batch they joined is committed with the
   * signed head that covers them: acknowledged means durable and signed. Whoever opened the store,
   * no head is signed before the start check has passed in this process.
   */
  append(leaves: Uint8Array[]): Promise<Appended> {
    for (const d of leaves)
      if (!(d instanceof Uint8Array) || d.length !== 32) return Promise.reject(new TypeError('leaves are 32-byte answer hashes'));
    return this.sequencer.add(leaves);
  }

  /** Integrate everything queued now, without waiting for the interval. */
  flush(): Promise<void> {
    return this.sequencer.flush();
  }

  /** The head of a batch: never dated before its predecessor, so timestamp order follows size order. */
  private readonly seal: Seal = (size, root, previous) => {
    // The predecessor's time is the one it signed: a row whose columns say otherwise is not a head.
    if (previous && !validHead(previous)) throw new LedgerError('withheld', 'ledger is withheld (unverifiable): no head is signed');
    const timestamp = Math.max(this.o.now(), previous?.timestamp ?? 0);
    const rootHex = toHex(root);
    const sth = signTreeHead({ log: this.o.log, tree_size: size, root_hash: rootHex, timestamp }, this.o.sthKey, {
      service: this.o.names.service,
      ...(this.o.crypto ? { crypto: this.o.crypto } : {}),
    });
    return {
      tree_size: size,
      root_hash: rootHex,
      timestamp,
      signed: sth.signed,
      receipt: JSON.stringify(sth.receipt),
      key_hex: sth.key.public_key_hex,
      recorded: this.o.now(),
    } satisfies NewHead;
  };

  /**
   * The head for `batch` on the tree the audit has checked, signed before the transaction: the store
   * commits it in one crossing when it finds that tree, and seals afresh otherwise (another writer
   * got there first, or the stored subtrees disagree with the leaves).
   */
  private async preseal(batch: Uint8Array[]): Promise<Presealed | undefined> {
    const tree = this.gate.audit.knownTree();
    if (batch.length > PRESEAL_MAX || !tree) return undefined;
    try {
      this.lastHead ??= (await this.o.store.latestHeads(1))[0] ?? null;
      const previous = this.lastHead ?? undefined;
      const { root } = integrate(tree.size, tree.frontier, batch, nativeHasher);
      return { size: tree.size, previousId: previous?.id ?? null, head: this.seal(tree.size + batch.length, root, previous) };
    } catch {
      // Only a shortcut: a read that failed, or a predecessor that is not a head, is met again by
      // the seal inside the transaction, which says so.
      return undefined;
    }
  }

  // S2: no head is signed while the log is withheld, or before the start check has passed here:
  // the latest head's frontier recomputes its root, the high-water mark is not ahead of the log or
  // at another root, and every leaf since the latest head was read back against its data.
  private async integrate(batch: Uint8Array[]): Promise<{ firstIndex: number; head: HeadRow }> {
    const audit = this.gate.audit;
    const w = await this.gate.checked();
    if (w) throw new LedgerError('withheld', `ledger is withheld (${w}): no head is signed until an operator resolves it`);
    if (!audit.ready) throw new LedgerError('withheld', 'ledger is unverifiable (leaves unreadable): no head is signed');
    const presealed = await this.preseal(batch);
    const done = await guard(() => this.o.store.sequence(batch, this.seal, presealed));
    this.lastHead = done.head;
    audit.wrote(done.firstIndex, batch.length, done.frontier);
    try {
      this.o.highWater.advance({ tree_size: done.head.tree_size, root_hash: done.head.root_hash });
    } catch {
      // The head is committed; a high-water mark that could not be written only lags behind it.
    }
    return { firstIndex: done.firstIndex, head: done.head };
  }
}
