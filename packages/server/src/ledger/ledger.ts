// The transparency log: its write side (appends integrated in batches, each sealed by one signed
// head) and its read model, behind one audit gate, so the same state always reports the same
// sth_withheld reason (rule 1) and no head is signed while withheld (rule 2).
import type { CryptoBackend, Names } from '@svc/core';
import type { KeyPair } from '@svc/core/primitives';
import type { TileId } from '@svc/core/tlog';
import type { CheckpointSigner, LedgerApi } from './api.js';
import { Auditor } from './audit.js';
import type { FindingsRecord } from './findings-record.js';
import { AuditGate } from './gate.js';
import { MemoryHighWater, type HighWater } from './high-water.js';
import type { InclusionQuery } from './inclusion-request.js';
import { LedgerReadModel } from './queries.js';
import type { Appended } from './sequencer.js';
import type { LedgerStore } from './store.js';
import { LedgerWriter } from './writer.js';

export { ALGO, LEAF_HASHING } from './queries.js';

export interface LedgerOptions {
  store: LedgerStore;
  names: Names;
  log: string;
  sthKey: KeyPair;
  /** Whether a tree-head public key is still published (current or historic). */
  isPublished: (publicKeyHex: string) => boolean;
  /** Signs checkpoints of the heads (c2sp.org/tlog-checkpoint); without it there are none (404). */
  checkpoints?: CheckpointSigner;
  /** The largest head ever signed, kept outside the store; in memory when not given. */
  highWater?: HighWater;
  now?: () => number;
  /** Signs tree heads natively where present; noble otherwise. Must be synchronous. */
  crypto?: CryptoBackend;
  /** How long appends gather before a batch is integrated under one head (ms; 0: at the next turn). */
  batchMs?: number;
  /** The most leaves one batch takes. */
  maxBatch?: number;
  /**
   * Repeat the full recheck this often (ms, from the end of one to the start of the next, and at
   * least ten times as long as the last one took), started by a read once due. Off when not given.
   */
  auditMs?: number;
  /** The share of the time the background full check may take (0 to 1, default 1: as fast as it can). */
  checkShare?: number;
  /** Where full checks keep what they found for other processes of the same folder; none when absent. */
  findings?: FindingsRecord;
}

export class Ledger implements LedgerApi {
  readonly audit: Auditor;
  readonly store: LedgerStore;
  private readonly writer: LedgerWriter;
  private readonly reads: LedgerReadModel;

  constructor(o: LedgerOptions) {
    this.store = o.store;
    const highWater = o.highWater ?? new MemoryHighWater();
    const now = o.now ?? Date.now;
    this.audit = new Auditor(o.store, highWater, now, o.checkShare, o.findings ?? null);
    const gate = new AuditGate(this.audit, o.store, highWater, now, o.auditMs);
    this.writer = new LedgerWriter({ ...o, highWater, now }, gate);
    this.reads = new LedgerReadModel(o, gate);
  }

  /** Sign the empty tree once, so a fresh log publishes a head from the start. */
  init(): Promise<void> {
    return this.writer.init();
  }

  append(leaves: Uint8Array[]): Promise<Appended> {
    return this.writer.append(leaves);
  }

  /** Integrate everything queued now, without waiting for the interval. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  head() {
    return this.reads.head();
  }
  inclusion(q: InclusionQuery) {
    return this.reads.inclusion(q);
  }
  find(data: Uint8Array) {
    return this.reads.find(data);
  }

  findAll(data: readonly Uint8Array[]) {
    return this.reads.findAll(data);
  }
  paths(indexes: readonly number[], treeSize: number) {
    return this.reads.paths(indexes, treeSize);
  }
  consistency(first: number, second: number | undefined, signed: boolean) {
    return this.reads.consistency(first, second, signed);
  }
  history(verifiable: boolean) {
    return this.reads.history(verifiable);
  }
  checkpoint() {
    return this.reads.checkpoint();
  }
  vkeys() {
    return this.reads.vkeys();
  }
  tile(id: TileId) {
    return this.reads.tile(id);
  }

  /** Integrate what is queued, then close the store. */
  async close(): Promise<void> {
    await this.writer.flush().catch(() => undefined);
    await this.store.close();
  }
}
