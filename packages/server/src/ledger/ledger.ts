// The transparency log: appends integrated in batches (each batch sealed by one signed head),
// proofs, and the responses of the ledger endpoints. Every read runs the same audit, so the same
// state always reports the same sth_withheld reason (rule 1), and no head is signed while withheld
// (rule 2).
import {
  consistencyBundle,
  consistencyProof,
  fromHex,
  publishedKey,
  inclusionProof,
  leafHash,
  signTreeHead,
  toHex,
  treeRoot,
  type CryptoBackend,
  type KeyPair,
  type Names,
  type SthBundle,
} from '@svc/core';
import { LedgerError, ledgerUnavailable } from './errors.js';
import { inclusionQuery, type InclusionQuery } from './inclusion-request.js';
import type { ConsistencyBody, HistoryBody, InclusionBody, LedgerApi, LedgerSthBody } from './api.js';
import { Auditor, validHead, type Withheld } from './audit.js';
import type { TileId } from '@svc/core/tlog';
import type { Checkpointer } from '../tlog/checkpoints.js';
import { readTile, readTree, rootAt } from './reads.js';
import { Sequencer, type Appended } from './sequencer.js';
import type { HeadRow, LedgerStore, NewHead } from './store.js';
import { MemoryHighWater, type HighWater } from './high-water.js';

export const LEAF_HASHING =
  'leaf = the 32 raw bytes of answer_sha256; leaf_hash = SHA-256(0x00 || leaf); node = SHA-256(0x01 || left || right); empty root = SHA-256("")';
export const ALGO = 'RFC6962-SHA256';
const SIGNED_CHECKPOINTS = 20;

export interface LedgerOptions {
  store: LedgerStore;
  names: Names;
  log: string;
  sthKey: KeyPair;
  /** Whether a tree-head public key is still published (current or historic). */
  isPublished: (publicKeyHex: string) => boolean;
  /** Signs checkpoints of the heads (c2sp.org/tlog-checkpoint); without it there are none (404). */
  checkpoints?: Checkpointer;
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
}

/** Damaged or unreadable storage is a 503 on whichever read meets it, never an untyped error. */
async function guard<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof LedgerError) throw e;
    throw ledgerUnavailable();
  }
}

export class Ledger implements LedgerApi {
  readonly audit: Auditor;
  readonly store: LedgerStore;
  private readonly now: () => number;
  private readonly highWater: HighWater;
  private readonly sequencer: Sequencer;

  constructor(private readonly o: LedgerOptions) {
    this.store = o.store;
    this.highWater = o.highWater ?? new MemoryHighWater();
    this.now = o.now ?? Date.now;
    this.audit = new Auditor(o.store, this.highWater, this.now);
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
        recorded = this.highWater.read();
      } catch {
        // reported by the audit
      }
      if (recorded === null && (await store.headCount()) > 0) {
        const latest = (await store.latestHeads(1))[0]!;
        this.highWater.advance({ tree_size: latest.tree_size, root_hash: latest.root_hash });
      }
      if ((await this.checked()) === null && (await store.headCount()) === 0 && (await store.size()) === 0) {
        const signed = this.append([]);
        await this.flush();
        await signed;
      }
    });
  }

  private seen: string | null = null;
  private rootCache: { size: number; version: string; root: string } | null = null;

  /**
   * Run the incremental audit, skipped when neither the store nor the high-water mark has changed since the
   * last run; start the periodic full recheck when it is due.
   */
  private async checked(): Promise<Withheld | null> {
    try {
      const v = `${await this.o.store.version()}|${this.highWater.version?.() ?? ''}`;
      if (v !== this.seen) {
        await this.audit.refresh();
        this.seen = v;
      }
    } catch {
      this.seen = null;
      throw ledgerUnavailable();
    }
    this.recheckIfDue();
    return this.audit.withheld();
  }

  private recheckIfDue(): void {
    const every = this.o.auditMs;
    const { at, took, failed } = this.audit.lastRecheck;
    // A recheck that could not read (the database away) is tried again after 5 s.
    const wait = failed ? Math.min(every ?? 0, 5_000) : Math.max(every ?? 0, 10 * took);
    if (!every || at === -Infinity || this.now() - at < wait) return;
    void this.audit.fullCheckInBackground().then(
      () => {
        // The findings were replaced: cached roots and the seen version no longer vouch for them.
        this.seen = null;
      },
      () => undefined,
    );
  }

  /** Root at a size, cached for the current store version (proof reads repeat the same roots). */
  private async root(size: number): Promise<string> {
    const hit = this.cachedRoot(size);
    if (hit) return hit;
    const root = toHex(await rootAt(this.o.store, size));
    this.keepRoot(size, root);
    return root;
  }

  private cachedRoot(size: number): string | null {
    const c = this.rootCache;
    return c && c.size === size && c.version === (this.seen ?? '') ? c.root : null;
  }

  private keepRoot(size: number, root: string): void {
    this.rootCache = { size, version: this.seen ?? '', root };
  }

  /**
   * Append answer hashes (32 bytes each). Resolves once the batch they joined is committed with the
   * signed head that covers them: acknowledged means durable and signed. Whoever opened the store,
   * no head is signed before the full check has passed in this process.
   */
  append(answerHashes: Uint8Array[]): Promise<Appended> {
    for (const d of answerHashes)
      if (!(d instanceof Uint8Array) || d.length !== 32) return Promise.reject(new TypeError('leaves are 32-byte answer hashes'));
    return this.sequencer.add(answerHashes);
  }

  /** Integrate everything queued now, without waiting for the interval. */
  flush(): Promise<void> {
    return this.sequencer.flush();
  }

  // S2: no head is signed while the log is withheld, or before the full check has passed here.
  private async integrate(batch: Uint8Array[]): Promise<Appended> {
    if (!this.audit.fullCheckDone) await guard(() => this.audit.fullCheck());
    if (!this.audit.fullCheckDone) throw new LedgerError('withheld', 'ledger is unverifiable (leaves unreadable): no head is signed');
    const w = await this.checked();
    if (w) throw new LedgerError('withheld', `ledger is withheld (${w}): no head is signed until an operator resolves it`);
    const seal = (size: number, root: Uint8Array, previous: HeadRow | undefined): NewHead => {
      // The predecessor's time is the one it signed: a row whose columns say otherwise is not a head.
      if (previous && !validHead(previous)) throw new LedgerError('withheld', 'ledger is withheld (unverifiable): no head is signed');
      // Heads are never dated before their predecessor, so timestamp order follows size order.
      const timestamp = Math.max(this.now(), previous?.timestamp ?? 0);
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
        recorded: this.now(),
      };
    };
    const done = await guard(() => this.o.store.sequence(batch, seal));
    this.audit.wrote(done.firstIndex, batch.length, done.frontier);
    try {
      this.highWater.advance({ tree_size: done.head.tree_size, root_hash: done.head.root_hash });
    } catch {
      // The head is committed; a high-water mark that could not be written only lags behind it.
    }
    return { firstIndex: done.firstIndex, head: done.head };
  }

  private sthOf(h: HeadRow, withKey: boolean): SthBundle {
    const keyHex = h.key_hex;
    const key = withKey || this.o.isPublished(keyHex) ? publishedKey(fromHex(keyHex)!, this.o.names.contexts.sth) : null;
    return { signed: h.signed, receipt: JSON.parse(h.receipt), key } as SthBundle;
  }

  head(): Promise<LedgerSthBody> {
    return guard(async () => {
      const w = await this.checked();
      const size = await this.o.store.size();
      const out: LedgerSthBody = {
        enabled: true,
        log: this.o.log,
        algo: ALGO,
        leaf_hashing: LEAF_HASHING,
        tree_size: size,
        root_hash: await this.root(size),
      };
      if (w) {
        out.signed_tree_head = null;
        out.sth_withheld = w;
        out.note = `The signed tree head is withheld (${w}); see /api/transparency/ledger/history.`;
      } else {
        const latest = (await this.o.store.latestHeads(1))[0];
        out.signed_tree_head = latest ? this.sthOf(latest, true) : null;
        out.note =
          'Hashes only, never content. Verify inclusion and consistency proofs against the signed tree head, never against unsigned fields.';
      }
      return out;
    });
  }

  inclusion(req: unknown): Promise<InclusionBody> {
    let q: InclusionQuery;
    try {
      q = inclusionQuery(req);
    } catch (e) {
      return Promise.reject(e);
    }
    const { data, leaf } = q;
    const r = { tree_size: q.treeSize };
    return guard(async () => {
      const store = this.o.store;
      // Independent reads go together: on a networked store each is a round trip.
      const [, size, index] = await Promise.all([
        this.checked(),
        store.size(),
        data ? store.findByData(data) : store.findByLeafHash(leaf!),
      ]);
      let treeSize = size;
      if (r.tree_size !== undefined) {
        if (typeof r.tree_size !== 'number' || !Number.isSafeInteger(r.tree_size) || r.tree_size < 1 || r.tree_size > size) {
          throw new LedgerError('out_of_range', `tree_size must be an integer from 1 to ${size}`);
        }
        treeSize = r.tree_size;
      }
      if (index === undefined || index >= treeSize) return { found: false };
      // The root at the current size is cached per store version; any other size is read with the path.
      const cached = this.cachedRoot(treeSize);
      const { proof, root } = await readTree(store, (t) => ({
        proof: inclusionProof(t, index, treeSize),
        root: cached ?? toHex(treeRoot(t, treeSize)),
      }));
      this.keepRoot(treeSize, root);
      return {
        found: true,
        leaf: toHex(data ? leafHash(data) : leaf!),
        index,
        tree_size: treeSize,
        root_hash: root,
        proof: proof.map(toHex),
      };
    });
  }

  consistency(first: number, second: number | undefined, signed: boolean): Promise<ConsistencyBody> {
    return guard(async () => {
      const store = this.o.store;
      const [w, size] = await Promise.all([this.checked(), store.size()]);
      const b = second ?? size;
      if (!Number.isSafeInteger(first) || first < 1 || first > size)
        throw new LedgerError('out_of_range', `first must be from 1 to ${size}`);
      if (!Number.isSafeInteger(b) || b < first || b > size)
        throw new LedgerError('out_of_range', `second must be from ${first} to ${size}`);
      // The proof and both roots from one batched read.
      const { proof, oldRoot, newRoot } = await readTree(store, (t) => ({
        proof: consistencyProof(t, first, b),
        oldRoot: treeRoot(t, first),
        newRoot: treeRoot(t, b),
      }));
      const plain: ConsistencyBody = {
        first,
        second: b,
        old_root: toHex(oldRoot),
        new_root: toHex(newRoot),
        proof: proof.map(toHex),
      };
      if (w) plain.sth_withheld = w;
      if (!signed) return plain;
      const oldHead = await store.headAtSize(first);
      const newHead = await store.headAtSize(b);
      if (!oldHead || !newHead)
        throw new LedgerError('out_of_range', `no signed checkpoint was recorded at tree size ${!oldHead ? first : b}`);
      if (newHead.timestamp < oldHead.timestamp) return { ...plain, bundle_withheld: 'timestamp-order' };
      const bundle = consistencyBundle(this.sthOf(oldHead, true), this.sthOf(newHead, true), proof, {
        service: this.o.names.service,
      }) as ConsistencyBody;
      if (w) bundle.sth_withheld = w;
      return bundle;
    });
  }

  history(verifiable: boolean): Promise<HistoryBody> {
    const gone = () => ledgerUnavailable('history');
    return guard(async () => {
      await this.checked();
      const a = this.audit;
      if (a.historyUnreadable) throw gone();
      let rows: HeadRow[];
      let count: number;
      try {
        rows = await this.o.store.latestHeads(SIGNED_CHECKPOINTS);
        count = await this.o.store.headCount();
      } catch {
        throw gone();
      }
      const inconsistent = a.inconsistent;
      // Rule 1 across every field: the history's verdict is read from the same findings as the
      // head's withheld reason, so a withheld head never stands beside `consistent: true`.
      const withheld = a.withheld();
      const evidence =
        a.rollback || a.forked.size > 0 || inconsistent.size > 0 || a.leafMismatch || withheld === 'rollback' || withheld === 'fork';
      const out: HistoryBody = { enabled: true };
      if (evidence) out.consistent = false;
      else if (a.leavesUnreadable || withheld === 'unverifiable')
        Object.assign(out, { consistent: null, consistent_unknown: 'leaves_unreadable' });
      else if (!a.fullCheckDone) Object.assign(out, { consistent: null, consistent_unknown: 'leaf_check_incomplete' });
      else out.consistent = true;
      out.forked_sizes = [...a.forked].sort((x, y) => x - y);
      out.append_only_verified = inconsistent.size > 0 || a.leafMismatch ? false : a.fullCheckDone && !a.leavesUnreadable ? true : null;
      out.inconsistent_sizes = [...inconsistent];
      out.count = count;
      out.checkpoints = rows.map((h) => ({ tree_size: h.tree_size, root_hash: h.root_hash, signed: h.signed, recorded: h.recorded }));
      if (verifiable) {
        try {
          out.signed_checkpoints = rows.map((h) => this.sthOf(h, false));
        } catch {
          out.signed_checkpoints = null;
        }
      }
      out.note = 'Newest checkpoints first. consistent:null means the checks against the live log could not run yet, which is not a pass.';
      return out;
    });
  }

  // S2 for checkpoints: none is signed while the log is withheld, and the reason is the head's.
  checkpoint(): Promise<string> {
    const c = this.o.checkpoints;
    if (!c) return Promise.reject(new LedgerError('not_found', 'this ledger publishes no checkpoints'));
    return guard(async () => {
      const w = await this.checked();
      if (w) throw new LedgerError('withheld', `the checkpoint is withheld (${w}); see /api/transparency/ledger/history`);
      const latest = (await this.o.store.latestHeads(1))[0];
      if (!latest) throw ledgerUnavailable('checkpoint');
      return c.sign(latest);
    });
  }

  vkeys(): string {
    return this.o.checkpoints?.vkeys() ?? '';
  }

  /** Tiles are data, not statements: served at the current size whatever the audit says, like proofs. */
  tile(id: TileId): Promise<Uint8Array> {
    return guard(async () => {
      const store = this.o.store;
      const bytes = await store.snapshot(async (r) => readTile(r, id, await r.size(), { rangeReads: store.kind === 'postgres' }));
      if (!bytes) throw new LedgerError('not_found', 'the tree does not hold this tile (yet)');
      return bytes;
    });
  }

  /** Integrate what is queued, then close the store. */
  async close(): Promise<void> {
    await this.sequencer.flush().catch(() => undefined);
    await this.o.store.close();
  }
}
