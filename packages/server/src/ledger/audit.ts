// The ledger's self-audit. What it reports is a function of the stored state alone (rule 1): the
// same leaves, subtrees, heads and high-water mark give the same answer however the process got there.
// A start reads what signing needs, in O(log n) reads whatever the log's age (issue 56): the latest
// head, the stored frontier that must recompute its root, the high-water mark (no rollback, and its
// root at its size), and every leaf appended after the latest head. Cheap checks then run on every
// read, incrementally (only heads and leaves not seen since); a change that is not an append (a
// shorter log, fewer heads) makes them start over. A full recheck of every leaf against its data,
// every stored subtree against the leaves, and every head against its signed text and the root
// recomputed from leaf data runs in the background at a bounded share of a core: the first one is
// reported as incomplete until done; later ones (repeated on an interval, so damage that is not an
// append, such as a leaf edited in place, is found by a running server as by a fresh start) build
// their findings apart and replace the served ones whole when they finish. docs/security.md,
// "What a start checks", gives the argument.
import { bytesEqual, sha256, toHex } from '@svc/core/primitives';
import { frontier, type NodeId } from '@svc/core/merkle';
import { nativeHasher } from './hasher.js';
import { rootAt } from './reads.js';
import { isDamage, type HeadRow, type LedgerReads, type LedgerStore } from './store.js';
import { serially } from './serial.js';
import { Pacer } from './pace.js';
import type { FindingsRecord, RecordedFindings, Withheld } from './findings-record.js';
import type { HighWater, HighWaterHead } from './high-water.js';

export type { Withheld };

interface ScanState {
  next: number;
  stack: { level: number; hash: Uint8Array }[];
}

const HEX64 = /^[0-9a-f]{64}$/;
// Leaves read per query by the full check.
const SCAN_CHUNK = 8192;

/** The root of the tree whose perfect subtrees, left to right, are `stack` (the empty tree's for none). */
function stackRoot(stack: ScanState['stack']): Uint8Array {
  if (stack.length === 0) return sha256(new Uint8Array(0));
  let root = stack[stack.length - 1]!.hash;
  for (let k = stack.length - 2; k >= 0; k--) root = nativeHasher.node(stack[k]!.hash, root);
  return root;
}

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
  /**
   * The scan's start is vouched for, so its frontier may be signed on: from the start check (the
   * frontier of the latest head, which recomputes its root) or from a full check that reached it.
   */
  tipReady = false;
  /** The heads before the latest at the start check were not read (left to the full check). */
  private partialHistory = false;
  /** What another full check of this folder found, read by the start check (start mode only). */
  recorded: RecordedFindings | null = null;
  private scan: ScanState = { next: 0, stack: [] };
  private scanTarget = 0;

  /** The high-water mark cannot be read: what was signed before cannot be compared. */
  highWaterUnreadable = false;

  constructor(
    private readonly store: LedgerStore,
    private readonly highWater: HighWater | null = null,
    /** 'start': the history is taken from the latest head on (O(log n)); 'full': every head and leaf is read. */
    private readonly mode: 'start' | 'full' = 'full',
    private readonly record: FindingsRecord | null = null,
  ) {}

  /** Head sizes found inconsistent with the log, by either check, ascending. */
  get inconsistent(): Set<number> {
    return new Set([...this.storedMismatch, ...this.dataMismatch, ...(this.recorded?.inconsistent_sizes ?? [])].sort((a, b) => a - b));
  }

  /** Sizes with two roots, as read and as recorded. */
  get forkedSizes(): Set<number> {
    return new Set([...this.forked, ...(this.recorded?.forked_sizes ?? [])].sort((a, b) => a - b));
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
      // The newest head's id, not a count of heads: counting reads every head row on every refresh,
      // a cost that grows with the log's past (issue 56).
      const [top] = await r.latestHeads(1);
      const newest = top?.id ?? 0;
      // Fewer leaves, or the heads seen so far gone, is not an append: judge the state afresh.
      // (A head deleted from the middle of the table is the full check's to find.)
      if (live < this.lastLive || newest < this.lastHeadId) {
        this.resetHeads();
        if (this.mode === 'start') this.untip();
      }
      this.lastLive = live;
      if (this.mode === 'start' && !this.tipReady && !this.damagedHead) await this.startAtLatest(r, live, top);
      if (!this.damagedHead) await this.readNewHeads(r, live);
      this.highWaterUnreadable = highWaterUnreadable;
      await this.judgeHighWater(r, highWater, live);
      // A start that finds the log withheld reads every head after all: nothing is signed then
      // anyway, and the sizes it lists must be those a server that read them all lists (rule 1).
      if (this.partialHistory && !this.damagedHead && (this.rollback || this.forked.size > 0 || this.storedMismatch.size > 0)) {
        this.resetHeads();
        this.partialHistory = false;
        await this.readNewHeads(r, live);
        if (!this.damagedHead) await this.judgeHighWater(r, highWater, live);
      }
      this.historyUnreadable = this.damagedHead;
    } catch (e) {
      if (!isDamage(e)) throw e;
      this.historyUnreadable = true;
    }
    if (this.tipReady && this.scan.next < live && !this.leavesUnreadable && !this.historyUnreadable)
      await this.scanLeaves(r, live, Infinity);
  }

  /** Rollback against the heads and the high-water mark; the mark's root at its size. */
  private async judgeHighWater(r: LedgerReads, highWater: HighWaterHead | null, live: number): Promise<void> {
    const maxHead = await r.maxHeadSize();
    this.rollback = maxHead > live || (highWater !== null && (highWater.tree_size > live || highWater.tree_size > maxHead));
    if (!highWater || this.rollback) return;
    await this.checkRoot(r, highWater.tree_size, highWater.root_hash, live);
    // A head recorded at the mark's size with another root is a second root at a size read.
    const there = await r.headAtSize(highWater.tree_size);
    if (there && there.root_hash !== highWater.root_hash) this.forked.add(highWater.tree_size);
  }

  /**
   * The start check's base: the latest head, and the stored frontier of its size, which must
   * recompute its root. Reading from there on, the heads before it are left to the full check. A
   * frontier that does not recompute the root is a fork (no tip: nothing is signed over it).
   */
  private async startAtLatest(r: LedgerReads, live: number, latest: HeadRow | undefined): Promise<void> {
    this.recorded = this.record?.read() ?? null;
    if (!latest) {
      // No head yet: every leaf there is is the tail.
      this.scan = { next: 0, stack: [] };
      this.tipReady = true;
      return;
    }
    if (!validHead(latest)) {
      this.damagedHead = true;
      return;
    }
    // From here, readNewHeads reads the latest head (and any newer) as it reads every later one.
    this.partialHistory = true;
    this.lastHeadId = latest.id - 1;
    if (latest.tree_size > live) return;
    const ids = frontier(latest.tree_size);
    let hashes: Uint8Array[];
    try {
      hashes = await r.nodes(ids);
    } catch (e) {
      if (!isDamage(e)) throw e;
      this.storedMismatch.add(latest.tree_size);
      return;
    }
    const stack = ids.map((id, k) => ({ level: id.level, hash: hashes[k]! }));
    if (toHex(stackRoot(stack)) !== latest.root_hash) {
      this.storedMismatch.add(latest.tree_size);
      return;
    }
    this.scan = { next: latest.tree_size, stack };
    this.tipReady = true;
  }

  private untip(): void {
    this.tipReady = false;
    this.scan = { next: 0, stack: [] };
  }

  /** Read heads after the last one read, at most `pages` pages of 1,000; true once none is left (or one is damaged). */
  private async readNewHeads(r: LedgerReads, live: number, pages = Infinity): Promise<boolean> {
    for (let page = 0; page < pages; page++) {
      const batch = await r.heads(this.lastHeadId, 1000);
      for (const h of batch) {
        if (!validHead(h)) {
          this.damagedHead = true;
          return true;
        }
        this.lastHeadId = h.id;
        const at = this.roots.get(h.tree_size) ?? new Set<string>();
        at.add(h.root_hash);
        this.roots.set(h.tree_size, at);
        if (at.size > 1) this.forked.add(h.tree_size);
        await this.checkRoot(r, h.tree_size, h.root_hash, live);
      }
      if (batch.length < 1000) return true;
    }
    return false;
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
    const hex = toHex(stackRoot(st));
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
    if (!this.tipReady || this.leavesUnreadable || s.next !== firstIndex) return;
    const ids = frontier(firstIndex + count);
    if (ids.length !== frontierHashes.length) return;
    s.next = firstIndex + count;
    s.stack = ids.map((id, k) => ({ level: id.level, hash: frontierHashes[k]! }));
    this.checkDataRoot(s.next, s.stack);
  }

  /** The tree the scan has checked (its size and frontier), once its start is vouched for. */
  knownTree(): { size: number; frontier: Uint8Array[] } | null {
    if (!this.tipReady || this.leavesUnreadable) return null;
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
   * Run the full recheck in slices, pausing between them so requests are served meanwhile and the
   * check takes at most `share` of the time (0.1: a slice of 30 ms is followed by 270 ms of rest);
   * resolves when done, whatever it finds. Each slice reads its own snapshot.
   */
  async fullCheckInSlices(slice: number, share = 1): Promise<void> {
    const pacer = new Pacer(share);
    await this.startFullCheck(pacer);
    for (;;) {
      let finished: boolean;
      pacer.slice();
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
      await pacer.rest();
    }
    await this.finishFullCheck();
  }

  /** With a pacer, every head is first read against the stored tree in slices, as the leaves are. */
  private async startFullCheck(pacer?: Pacer): Promise<void> {
    this.scan = { next: 0, stack: [] };
    this.fullCheckDone = false;
    this.leafMismatch = false;
    this.leavesUnreadable = false;
    this.dataMismatch.clear();
    this.resetHeads();
    this.lastLive = 0;
    // A log of 10^7 heads is 10^7 subtree reads: in slices of 16 pages, each its own snapshot, so
    // readers and writers are not held behind one long one. A head that went meanwhile makes the
    // refresh below start over in one snapshot.
    for (let done = pacer === undefined; !done; ) {
      pacer!.slice();
      try {
        done = await this.store.snapshot(async (r) => this.readNewHeads(r, await r.size(), 16));
      } catch (e) {
        if (!isDamage(e)) throw e;
        done = true;
      }
      if (!done) await pacer!.rest();
    }
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
    this.tipReady = true;
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
    return this.recorded?.withheld ?? null;
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
    /** The share of the time a background full check may take (0 to 1; 1: as fast as it can). */
    private readonly share = 1,
    /** Where a full check's findings are kept for the folder's other processes; none when absent. */
    private readonly record: FindingsRecord | null = null,
  ) {
    this.cur = new Findings(store, highWater, 'start', record);
  }

  /** How far a running full recheck is (leaves checked of the size it checks up to); null when none runs. */
  scanProgress(): { done: number; total: number } | null {
    return this.checking?.scanProgress() ?? null;
  }

  get fullCheckDone(): boolean {
    return this.cur.fullCheckDone;
  }
  /** Whether a head may be signed on the tree checked so far (the start check, or a full one, passed its reads). */
  get ready(): boolean {
    return this.cur.tipReady && !this.cur.leavesUnreadable;
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
    return this.cur.forkedSizes;
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

  /** The full recheck in slices, at the auditor's share of the time; resolves when done, whatever it finds. */
  fullCheckInBackground(slice = 16_384): Promise<void> {
    return this.recheck((f) => f.fullCheckInSlices(slice, this.share));
  }

  /** Keep what a finished full check found for the folder's other processes (or that it passed). */
  private keep(f: Findings): void {
    if (!this.record) return;
    const w = f.withheld();
    try {
      if (w)
        this.record.write({ withheld: w, inconsistent_sizes: [...f.inconsistent], forked_sizes: [...f.forkedSizes], found: this.now() });
      else if (f.fullCheckDone) this.record.clear();
    } catch {
      // Only a hint to other processes: each of them checks the log at its own share as well.
    }
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
        this.keep(next);
      } finally {
        this.lastRecheck = { at: this.now(), took: this.now() - started, failed };
        this.rechecking = null;
        this.checking = null;
      }
    })();
    return this.rechecking;
  }
}
