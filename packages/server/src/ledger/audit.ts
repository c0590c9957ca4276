// The ledger's self-audit. Cheap checks run on every read, incrementally (only heads and leaves
// not seen before); a full recheck of every leaf against its data and every stored subtree against
// the leaves runs in the background and is reported as incomplete until it finishes.
import { leafHash, nodeHash, toHex, treeRoot, bytesEqual } from '@svc/core';
import type { LedgerStore } from './store.js';

export type Withheld = 'rollback' | 'fork' | 'unverifiable';

interface ScanState {
  next: number;
  stack: { level: number; hash: Uint8Array }[];
}

export class Auditor {
  private lastHeadId = 0;
  private readonly roots = new Map<number, string>();
  readonly forked = new Set<number>();
  readonly inconsistent = new Set<number>();
  /** Heads cannot be read: the published history is unverifiable. */
  historyUnreadable = false;
  /** Leaves cannot be read for the leaf-level check. */
  leavesUnreadable = false;
  rollback = false;
  leafMismatch = false;
  fullCheckDone = false;
  private scan: ScanState = { next: 0, stack: [] };
  private scanning = false;

  constructor(private readonly store: LedgerStore) {}

  /**
   * Incremental checks: new heads, rollback, and (after the full check) new leaves. All reads see
   * one snapshot: a head committed by another process between two reads must never look like a
   * rollback or a fork.
   */
  refresh(): void {
    this.store.snapshot(() => this.refreshInSnapshot());
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
      for (;;) {
        const batch = this.store.heads(this.lastHeadId, 1000);
        for (const h of batch) {
          this.lastHeadId = h.id;
          const prev = this.roots.get(h.tree_size);
          if (prev !== undefined && prev !== h.root_hash) this.forked.add(h.tree_size);
          if (prev === undefined) this.roots.set(h.tree_size, h.root_hash);
          this.checkRoot(h.tree_size, h.root_hash, live);
        }
        if (batch.length < 1000) break;
      }
      this.rollback = this.store.maxHeadSize() > live;
      this.historyUnreadable = false;
    } catch {
      this.historyUnreadable = true;
    }
    if (this.fullCheckDone && this.scan.next < live && !this.leavesUnreadable) this.scanLeaves(live, Infinity);
  }

  private checkRoot(size: number, rootHex: string, live: number): void {
    if (size > live) {
      this.inconsistent.add(size);
      return;
    }
    try {
      if (toHex(treeRoot(this.store, size)) !== rootHex) this.inconsistent.add(size);
    } catch {
      this.inconsistent.add(size);
    }
  }

  /** Re-derive leaves [scan.next, upTo) from their data and compare every completed subtree. */
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
      }
    } catch {
      this.leavesUnreadable = true;
    }
  }

  /** Run the full recheck to completion now (CLI, tests). */
  fullCheckSync(): void {
    this.resetScan();
    this.scanLeaves(this.store.size(), Infinity);
    this.finishFullCheck();
  }

  /** Run the full recheck in slices on the event loop; resolves when done. */
  fullCheckInBackground(slice = 4000): Promise<void> {
    if (this.scanning) return Promise.resolve();
    this.scanning = true;
    this.resetScan();
    return new Promise((resolve) => {
      const step = () => {
        let target: number;
        try {
          target = this.store.size();
        } catch {
          this.leavesUnreadable = true;
          this.scanning = false;
          resolve();
          return;
        }
        this.scanLeaves(target, slice);
        if (this.scan.next >= target || this.leavesUnreadable) {
          this.finishFullCheck();
          this.scanning = false;
          resolve();
        } else setImmediate(step);
      };
      setImmediate(step);
    });
  }

  private resetScan(): void {
    this.scan = { next: 0, stack: [] };
    this.fullCheckDone = false;
    this.leafMismatch = false;
    this.leavesUnreadable = false;
  }

  private finishFullCheck(): void {
    if (this.leavesUnreadable) return;
    // With every stored subtree confirmed from leaf data, every recorded root is checked again.
    this.lastHeadId = 0;
    this.roots.clear();
    this.inconsistent.clear();
    this.forked.clear();
    this.fullCheckDone = true;
    this.refresh();
  }

  withheld(): Withheld | null {
    if (this.historyUnreadable) return 'unverifiable';
    if (this.rollback) return 'rollback';
    if (this.forked.size > 0 || this.inconsistent.size > 0 || this.leafMismatch) return 'fork';
    return null;
  }
}
