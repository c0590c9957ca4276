// The ledger's self-audit. What it reports is a function of the stored state alone (rule 1): the
// same leaves, subtrees, heads and witness give the same answer however the process got there.
// Cheap checks run on every read, incrementally (only heads and leaves not seen before); a change
// that is not an append (a shorter log, fewer heads) makes them start over. A full recheck of every
// leaf against its data, every stored subtree against the leaves, and every head's root against
// the root recomputed from leaf data runs in the background and is reported as incomplete until done.
import { bytesEqual, leafHash, nodeHash, sha256, toHex, treeRoot } from '@svc/core';
import type { HeadRow, LedgerStore } from './store.js';
import type { Witness } from './witness.js';

export type Withheld = 'rollback' | 'fork' | 'unverifiable';

interface ScanState {
  next: number;
  stack: { level: number; hash: Uint8Array }[];
}

const HEX64 = /^[0-9a-f]{64}$/;

/** A head row as stored; anything else in the table makes the history unreadable. */
function validHead(h: HeadRow): boolean {
  return (
    Number.isSafeInteger(h.id) &&
    Number.isSafeInteger(h.tree_size) &&
    h.tree_size >= 0 &&
    typeof h.root_hash === 'string' &&
    HEX64.test(h.root_hash) &&
    Number.isSafeInteger(h.timestamp) &&
    typeof h.signed === 'string' &&
    typeof h.receipt === 'string' &&
    typeof h.key_hex === 'string'
  );
}

export class Auditor {
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
  private scanning = false;

  constructor(
    private readonly store: LedgerStore,
    private readonly witness: Witness | null = null,
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
  refresh(): void {
    this.store.snapshot(() => this.refreshInSnapshot());
  }

  private resetHeads(): void {
    this.lastHeadId = 0;
    this.seenHeads = 0;
    this.roots.clear();
    this.forked.clear();
    this.storedMismatch.clear();
    this.damagedHead = false;
  }

  private refreshInSnapshot(): void {
    let live: number;
    try {
      live = this.store.size();
    } catch {
      this.leavesUnreadable = true;
      throw new Error('leaves unreadable');
    }
    try {
      const count = this.store.headCount();
      // Fewer leaves or fewer heads than already seen is not an append: judge the state afresh.
      if (live < this.lastLive || count < this.seenHeads) this.resetHeads();
      this.lastLive = live;
      if (!this.damagedHead) this.readNewHeads(live);
      const witness = this.witness?.read() ?? null;
      const maxHead = this.store.maxHeadSize();
      this.rollback = maxHead > live || (witness !== null && (witness.tree_size > live || witness.tree_size > maxHead));
      if (witness && !this.rollback) this.checkRoot(witness.tree_size, witness.root_hash, live);
      this.historyUnreadable = this.damagedHead;
    } catch {
      this.historyUnreadable = true;
    }
    if (this.fullCheckDone && this.scan.next < live && !this.leavesUnreadable) this.scanLeaves(live, Infinity);
  }

  private readNewHeads(live: number): void {
    for (;;) {
      const batch = this.store.heads(this.lastHeadId, 1000);
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
        this.checkRoot(h.tree_size, h.root_hash, live);
      }
      if (batch.length < 1000) return;
    }
  }

  private checkRoot(size: number, rootHex: string, live: number): void {
    if (size > live) {
      this.storedMismatch.add(size);
      return;
    }
    try {
      if (toHex(treeRoot(this.store, size)) !== rootHex) this.storedMismatch.add(size);
    } catch {
      this.storedMismatch.add(size);
    }
  }

  /** Re-derive leaves [scan.next, upTo) from their data, compare every subtree and head root. */
  private scanLeaves(upTo: number, budget: number): void {
    const s = this.scan;
    try {
      for (let done = 0; s.next < upTo && done < budget; done++, s.next++) {
        const i = s.next;
        const data = this.store.leafData(i);
        const stored = this.store.leafHashAt(i);
        if (!data || !stored) throw new Error('leaf missing');
        let h = leafHash(data);
        if (!bytesEqual(h, stored)) this.leafMismatch = true;
        let level = 0;
        while (s.stack.length > 0 && s.stack[s.stack.length - 1]!.level === level) {
          const left = s.stack.pop()!;
          h = nodeHash(left.hash, h);
          level++;
          const index = (i + 1) / 2 ** level - 1;
          if (!bytesEqual(this.store.subtree(level, index), h)) this.leafMismatch = true;
        }
        s.stack.push({ level, hash: h });
        this.checkDataRoot(i + 1);
      }
    } catch {
      this.leavesUnreadable = true;
    }
  }

  /** Compare the heads recorded at `size` with the root of the scan's stack (the tree of that size). */
  private checkDataRoot(size: number): void {
    const recorded = this.roots.get(size);
    if (!recorded) return;
    const st = this.scan.stack;
    let root = st[st.length - 1]!.hash;
    for (let k = st.length - 2; k >= 0; k--) root = nodeHash(st[k]!.hash, root);
    const hex = toHex(root);
    for (const r of recorded) if (r !== hex) this.dataMismatch.add(size);
  }

  /** Run the full recheck to completion now (CLI, tests, and before any head is signed). */
  fullCheckSync(): void {
    this.startFullCheck();
    this.scanLeaves(this.store.size(), Infinity);
    this.finishFullCheck();
  }

  /** Run the full recheck in slices on the event loop; resolves when done, whatever it finds. */
  fullCheckInBackground(slice = 4000): Promise<void> {
    if (this.scanning) return Promise.resolve();
    this.scanning = true;
    return new Promise((resolve) => {
      const end = () => {
        this.scanning = false;
        resolve();
      };
      const step = () => {
        try {
          const target = this.store.size();
          this.scanLeaves(target, slice);
          if (this.scan.next >= target || this.leavesUnreadable) {
            this.finishFullCheck();
            return end();
          }
        } catch {
          // Damaged storage (SQLITE_CORRUPT and the like) is a finding, never a crash.
          this.leavesUnreadable = true;
          return end();
        }
        setImmediate(step);
      };
      try {
        this.startFullCheck();
      } catch {
        this.leavesUnreadable = true;
        return end();
      }
      setImmediate(step);
    });
  }

  private startFullCheck(): void {
    this.scan = { next: 0, stack: [] };
    this.fullCheckDone = false;
    this.leafMismatch = false;
    this.leavesUnreadable = false;
    this.dataMismatch.clear();
    this.resetHeads();
    this.lastLive = 0;
    try {
      this.refresh();
    } catch {
      this.leavesUnreadable = true;
    }
    // The empty tree has a root too; a head at size 0 must carry it.
    const empty = this.roots.get(0);
    if (empty) for (const r of empty) if (r !== toHex(sha256(new Uint8Array(0)))) this.dataMismatch.add(0);
  }

  private finishFullCheck(): void {
    if (this.leavesUnreadable) return;
    this.fullCheckDone = true;
    try {
      this.refresh();
    } catch {
      this.leavesUnreadable = true;
    }
  }

  withheld(): Withheld | null {
    if (this.historyUnreadable) return 'unverifiable';
    if (this.rollback) return 'rollback';
    if (this.forked.size > 0 || this.storedMismatch.size > 0 || this.dataMismatch.size > 0 || this.leafMismatch) return 'fork';
    return null;
  }
}
