// The ledger's self-audit. What it reports is a function of the stored state alone (rule 1): the
// same leaves, subtrees, heads and high-water mark give the same answer however the process got there.
// Cheap checks run on every read, incrementally (only heads and leaves not seen before); a change
// that is not an append (a shorter log, fewer heads) makes them start over. A full recheck of every
// leaf against its data, every stored subtree against the leaves, and every head against its
// signed text and the root recomputed from leaf data runs in the background: the first one is
// reported as incomplete until done; later ones (repeated on an interval, so damage that is not an
// append, such as a leaf edited in place, is found by a running server as by a fresh start) build
// their findings apart and replace the served ones whole when they finish.
import { bytesEqual, frontier, sha256, toHex, type NodeId } from '@svc/core';
import { nativeHasher } from './hasher.js';
import { rootAt } from './reads.js';
import { isDamage, type HeadRow, type LedgerReads, type LedgerStore } from './store.js';
import { serially } from './serial.js';
import type { HighWater, HighWaterHead } from './high-water.js';

export type Withheld = 'rollback' | 'fork' | 'unverifiable';

interface ScanState {
  next: number;
  stack: { level: number; hash: Uint8Array }[];
}

const HEX64 = /^[0-9a-f]{64}$/;
// Leaves read per query by the full check.
const SCAN_CHUNK = 8192;

// WF-HEAD
/**
 * A head row as stored, whose size, root and time are those of its signed text (a row whose
 * columns say otherwise, such as a copy dated in the year 3000, is not a head); anything else in
 * the table makes the history unverifiable.
 */
export function validHead(h: HeadRow): boolean {
  if (
    !(
      Number.isSafeInteger(h.id) &&
      Number.isSafeInteger(h.tree_size) &&
      h.tree_size >= 0 &&
      typeof h.root_hash === 'string' &&
      HEX64.test(h.root_hash) &&
      Number.isSafeInteger(h.timestamp) &&
      typeof h.signed === 'string' &&
      typeof h.receipt === 'string' &&
      typeof h.key_hex === 'string'
    )
  )
    return false;
  try {
    const t = JSON.parse(h.signed) as Record<string, unknown>;
    return t.tree_size === h.tree_size && t.root_hash === h.root_hash && t.timestamp === h.timestamp;
  } catch {
    return false;
  }
}

/** What one pass of the audit has found so far; the Auditor serves one and may build another. */
class Findings {
  private lastHeadId = 0;
  private seenHeads = 0;
  private lastLive = 0;
  /** Every root recorded at each head size. */
  private readonly roots = new Map<number, Set<string>>();
  readonly forked = new Set<number>();
  /** Sizes whose head root differs from the stored tree, or lies beyond it. */
  private readonly storedMismatch = new Set<number>();
  /** Sizes whose head root differs from the root recomputed from leaf data (full check). */
  private readonly dataMismatch = new Set<number>();
  /** Heads cannot be read, or a head row is damaged: the published history is unverifiable. */
  historyUnreadable = false;
  /** A head row that is not a head (sticky until the heads are read afresh). */
  private damagedHead = false;
  /** Leaves cannot be read for the leaf-level check. */
  leavesUnreadable = false;
  rollback = false;
  leafMismatch = false;
  fullCheckDone = false;
  private scan: ScanState = { next: 0, stack: [] };
  private scanTarget = 0;

  /** The high-water mark cannot be read: what was signed before cannot be compared. */
  highWaterUnreadable = false;

  constructor(
    private readonly store: LedgerStore,
    private readonly highWater: HighWater | null = null,
  ) {}

  /** Head sizes found inconsistent with the log, by either check, ascending. */
  get inconsistent(): Set<number> {
    return new Set([...this.storedMismatch, ...this.dataMismatch].sort((a, b) => a - b));
  }

  /**
   * Incremental checks: new heads, rollback, and (after the full check) new leaves. All reads see
   * one snapshot: a head committed by another process between two reads must never look like a
   * rollback or a fork.
   */
  refresh(): Promise<void> {
    // The high-water mark is read before the snapshot opens, never inside it: a writer advances the
    // file only after its commit, so any mark read first is of a head the snapshot will show. Read
    // inside, a commit landing between the two reads looked like a rollback.
    let highWater: HighWaterHead | null = null;
    let unreadable = false;
    try {
      highWater = this.highWater?.read() ?? null;
    } catch {
      unreadable = true;
    }
    return this.store.snapshot((r) => this.refreshInSnapshot(r, highWater, unreadable));
  }

  private resetHeads(): void {
    this.lastHeadId = 0;
    this.seenHeads = 0;
    this.roots.clear();
    this.forked.clear();
    this.storedMismatch.clear();
    this.damagedHead = false;
  }

  private async refreshInSnapshot(r: LedgerReads, highWater: HighWaterHead | null, highWaterUnreadable: boolean): Promise<void> {
    let live: number;
    try {
      live = await r.size();
    } catch (e) {
      if (isDamage(e)) this.leavesUnreadable = true;
      throw e;
    }
    try {
      const count = await r.headCount();
      // Fewer leaves or fewer heads than already seen is not an append: judge the state afresh.
      if (live < this.lastLive || count < this.seenHeads) this.resetHeads();
      this.lastLive = live;
      if (!this.damagedHead) await this.readNewHeads(r, live);
      this.highWaterUnreadable = highWaterUnreadable;
      const maxHead = await r.maxHeadSize();
      this.rollback = maxHead > live || (highWater !== null && (highWater.tree_size > live || highWater.tree_size > maxHead));
      if (highWater && !this.rollback) await this.checkRoot(r, highWater.tree_size, highWater.root_hash, live);
      this.historyUnreadable = this.damagedHead;
    } catch (e) {
      if (!isDamage(e)) throw e;
      this.historyUnreadable = true;
    }
    if (this.fullCheckDone && this.scan.next < live && !this.leavesUnreadable) await this.scanLeaves(r, live, Infinity);
  }

  private async readNewHeads(r: LedgerReads, live: number): Promise<void> {
    for (;;) {
      const batch = await r.heads(this.lastHeadId, 1000);
      for (const h of batch) {
        if (!validHead(h)) {
          this.damagedHead = true;
          return;
        }
        this.lastHeadId = h.id;
        this.seenHeads++;
        const at = this.roots.get(h.tree_size) ?? new Set<string>();
        at.add(h.root_hash);
        this.roots.set(h.tree_size, at);
        if (at.size > 1) this.forked.add(h.tree_size);
        await this.checkRoot(r, h.tree_size, h.root_hash, live);
      }
      if (batch.length < 1000) return;
    }
  }

  private async checkRoot(r: LedgerReads, size: number, rootHex: string, live: number): Promise<void> {
    if (size > live) {
      this.storedMismatch.add(size);
      return;
    }
    try {
      if (toHex(await rootAt(r, size)) !== rootHex) this.storedMismatch.add(size);
    } catch (e) {
      if (!isDamage(e)) throw e;
      this.storedMismatch.add(size);
    }
  }

  /**
   * Re-derive leaves [scan.next, upTo) from their data, at most `budget` of them, and compare every
   * leaf hash, subtree and head root. Reads go in chunks: the leaves of a chunk in one query, the
   * stored subtrees they complete in another.
   */
  /** How far the running leaf check is (leaves checked of the size it checks up to), for progress lines. */
  scanProgress(): { done: number; total: number } {
    return { done: this.scan.next, total: Math.max(this.scanTarget, this.scan.next) };
  }

  private async scanLeaves(r: LedgerReads, upTo: number, budget: number): Promise<void> {
    const s = this.scan;
    this.scanTarget = upTo;
    try {
      let left = budget;
      while (s.next < upTo && left > 0) {
        const end = Math.min(upTo, s.next + Math.min(SCAN_CHUNK, left));
        const rows = await r.leaves(s.next, end);
        const made: NodeId[] = [];
        const hashes: Uint8Array[] = [];
        const stack = s.stack.slice();
        for (let i = s.next; i < end; i++) {
          const row = rows[i - s.next]!;
          let h = nativeHasher.leaf(row.data);
          if (!bytesEqual(h, row.hash)) this.leafMismatch = true;
          let level = 0;
          while (stack.length > 0 && stack[stack.length - 1]!.level === level) {
            h = nativeHasher.node(stack.pop()!.hash, h);
            level++;
            made.push({ level, index: (i + 1) / 2 ** level - 1 });
            hashes.push(h);
          }
          stack.push({ level, hash: h });
          this.checkDataRoot(i + 1, stack);
        }
        const stored = await r.nodes(made);
        for (let k = 0; k < made.length; k++) if (!bytesEqual(stored[k]!, hashes[k]!)) this.leafMismatch = true;
        s.stack = stack;
        left -= end - s.next;
        s.next = end;
      }
    } catch (e) {
      this.unreadable(e);
    }
  }

  /** Missing or corrupt rows are a finding; a read that could not be made ends the pass (thrown). */
  private unreadable(e: unknown): void {
    if (!isDamage(e)) throw e;
    this.leavesUnreadable = true;
  }

  /** Compare the heads recorded at `size` with the root of the scan's stack (the tree of that size). */
  private checkDataRoot(size: number, st: ScanState['stack']): void {
    const recorded = this.roots.get(size);
    if (!recorded) return;
    let root = st[st.length - 1]!.hash;
    for (let k = st.length - 2; k >= 0; k--) root = nativeHasher.node(st[k]!.hash, root);
    const hex = toHex(root);
    for (const r of recorded) if (r !== hex) this.dataMismatch.add(size);
  }

  /**
   * Leaves this process has just committed, with the frontier it computed for them. When the scan
   * had reached exactly where they start, they are taken as scanned: they are what the same
   * transaction stored, and hashing them again from the store would double the cost of an append.
   * Leaves written by any other process are still read back and checked.
   */
  wrote(firstIndex: number, count: number, frontierHashes: Uint8Array[]): void {
    const s = this.scan;
    if (!this.fullCheckDone || this.leavesUnreadable || s.next !== firstIndex) return;
    const ids = frontier(firstIndex + count);
    if (ids.length !== frontierHashes.length) return;
    s.next = firstIndex + count;
    s.stack = ids.map((id, k) => ({ level: id.level, hash: frontierHashes[k]! }));
    this.checkDataRoot(s.next, s.stack);
  }

  /** The tree the scan has read and checked (its size and frontier), once the full check is done. */
  knownTree(): { size: number; frontier: Uint8Array[] } | null {
    if (!this.fullCheckDone || this.leavesUnreadable) return null;
    return { size: this.scan.next, frontier: this.scan.stack.map((x) => x.hash) };
  }

  /** Run the full recheck to completion in one snapshot. */
  async fullCheck(): Promise<void> {
    await this.startFullCheck();
    try {
      await this.store.snapshot(async (r) => this.scanLeaves(r, await r.size(), Infinity));
    } catch (e) {
      this.unreadable(e);
    }
    await this.finishFullCheck();
  }

  /**
   * Run the full recheck in slices, yielding between them so requests are served meanwhile;
   * resolves when done, whatever it finds. Each slice reads its own snapshot.
   */
  async fullCheckInSlices(slice: number): Promise<void> {
    await this.startFullCheck();
    for (;;) {
      let finished: boolean;
      try {
        finished = await this.store.snapshot(async (r) => {
          const target = await r.size();
          await this.scanLeaves(r, target, slice);
          return this.scan.next >= target || this.leavesUnreadable;
        });
      } catch (e) {
        this.unreadable(e);
        finished = true;
      }
      if (finished) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.finishFullCheck();
  }

  private async startFullCheck(): Promise<void> {
    this.scan = { next: 0, stack: [] };
    this.fullCheckDone = false;
    this.leafMismatch = false;
    this.leavesUnreadable = false;
    this.dataMismatch.clear();
    this.resetHeads();
    this.lastLive = 0;
    try {
      await this.refresh();
    } catch (e) {
      this.unreadable(e);
    }
    // The empty tree has a root too; a head at size 0 must carry it.
    const empty = this.roots.get(0);
    if (empty) for (const r of empty) if (r !== toHex(sha256(new Uint8Array(0)))) this.dataMismatch.add(0);
  }

  private async finishFullCheck(): Promise<void> {
    if (this.leavesUnreadable) return;
    this.fullCheckDone = true;
    try {
      await this.refresh();
    } catch (e) {
      this.unreadable(e);
    }
  }

  withheld(): Withheld | null {
    if (this.historyUnreadable || this.highWaterUnreadable) return 'unverifiable';
    if (this.rollback) return 'rollback';
    if (this.forked.size > 0 || this.storedMismatch.size > 0 || this.dataMismatch.size > 0 || this.leafMismatch) return 'fork';
    // A log whose leaves cannot all be read (a missing row, a damaged page) cannot be checked.
    if (this.leavesUnreadable) return 'unverifiable';
    return null;
  }
}

// S1: what the audit reports is a function of the stored state, whoever reads and whenever.
// S3 (left open by the spec): withheld() gives unverifiable, then rollback, then fork.
/**
 * The audit a ledger serves: one set of findings, refreshed one reader at a time, so no reader sees
 * one half-updated. A recheck after the first builds a second set and swaps it in when done.
 */
export class Auditor {
  private cur: Findings;
  private readonly oneAtATime = serially();
  private rechecking: Promise<void> | null = null;
  private checking: Findings | null = null;
  /**
   * When the last full recheck ended, how long it took (ms), and whether it failed for want of
   * reads (then nothing it found was served), for pacing the next.
   */
  lastRecheck = { at: -Infinity, took: 0, failed: false };

  constructor(
    private readonly store: LedgerStore,
    private readonly highWater: HighWater | null = null,
    private readonly now: () => number = Date.now,
  ) {
    this.cur = new Findings(store, highWater);
  }

  /** How far a running full recheck is (leaves checked of the size it checks up to); null when none runs. */
  scanProgress(): { done: number; total: number } | null {
    return this.checking?.scanProgress() ?? null;
  }

  get fullCheckDone(): boolean {
    return this.cur.fullCheckDone;
  }
  get historyUnreadable(): boolean {
    return this.cur.historyUnreadable;
  }
  get leavesUnreadable(): boolean {
    return this.cur.leavesUnreadable;
  }
  get rollback(): boolean {
    return this.cur.rollback;
  }
  get leafMismatch(): boolean {
    return this.cur.leafMismatch;
  }
  get forked(): ReadonlySet<number> {
    return this.cur.forked;
  }
  get inconsistent(): Set<number> {
    return this.cur.inconsistent;
  }
  withheld(): Withheld | null {
    return this.cur.withheld();
  }

  refresh(): Promise<void> {
    return this.oneAtATime(() => this.cur.refresh());
  }

  wrote(firstIndex: number, count: number, frontierHashes: Uint8Array[]): void {
    this.cur.wrote(firstIndex, count, frontierHashes);
  }

  /** The tree the served findings have checked leaf by leaf, or null before the full check. */
  knownTree(): { size: number; frontier: Uint8Array[] } | null {
    return this.cur.knownTree();
  }

  /** Run the full recheck to completion (CLI, tests, and before any head is signed). */
  fullCheck(): Promise<void> {
    return this.recheck((f) => f.fullCheck());
  }

  /** The full recheck in slices, yielding between them; resolves when done, whatever it finds. */
  fullCheckInBackground(slice = 16_384): Promise<void> {
    return this.recheck((f) => f.fullCheckInSlices(slice));
  }

  /**
   * One full recheck at a time, on a fresh set of findings that replaces the served one whole,
   * inside the refresh queue; until then readers see the served set, refreshed as usual.
   */
  private recheck(run: (f: Findings) => Promise<void>): Promise<void> {
    this.rechecking ??= (async () => {
      const started = this.now();
      let failed = true;
      try {
        const next = new Findings(this.store, this.highWater);
        this.checking = next;
        await run(next);
        await this.oneAtATime(async () => {
          await next.refresh();
          this.cur = next;
        });
        failed = false;
      } finally {
        this.lastRecheck = { at: this.now(), took: this.now() - started, failed };
        this.rechecking = null;
        this.checking = null;
      }
    })();
    return this.rechecking;
  }
}
