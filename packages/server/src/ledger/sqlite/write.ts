// One sequencing transaction on a SQLite connection, in two halves around the signature: `begin`
// takes the write lock and stores the batch's leaves and subtrees; `finish` records the signed head
// and commits, `abort` rolls back. The store runs the halves back to back on its own connection,
// or in a writer thread (thread-entry.ts) while the signature is made on the main thread; a head
// signed before the batch, for exactly the tree `begin` finds, commits in `begin` itself.
import { frontier, integrate, toHex } from '@svc/core/merkle';
import { nativeHasher } from '../hasher.js';
import { lazy, Reads } from './db.js';
import type { Sqlite } from './driver.js';
import type { HeadRow, NewHead, Presealed } from '../store.js';

/** Whether a batch begun at (`size`, `previous`) with `root` is the one `p` was signed for. */
function presealFits(p: Presealed | undefined, size: number, previous: HeadRow | undefined, root: string): p is Presealed {
  return (
    p !== undefined &&
    p.size === size &&
    (previous?.id ?? null) === p.previousId &&
    typeof p.head === 'object' &&
    p.head !== null &&
    p.head.root_hash === root
  );
}

export interface Begun {
  firstIndex: number;
  size: number;
  root: Uint8Array;
  previous: HeadRow | undefined;
  frontier: Uint8Array[];
  /** The head's id when the batch was committed with the head signed beforehand (it fit). */
  committed?: number;
}

export class Writer {
  private readonly r: Reads;
  private readonly ins;

  constructor(readonly db: Sqlite) {
    this.r = new Reads(db);
    this.ins = {
      leaf: lazy(db, 'INSERT INTO leaves(idx, data, hash) VALUES (?, ?, ?)'),
      node: lazy(db, 'INSERT OR REPLACE INTO nodes(level, idx, hash) VALUES (?, ?, ?)'),
      head: lazy(db, 'INSERT INTO heads(tree_size, root_hash, timestamp, signed, receipt, key_hex, recorded) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    };
  }

  /** Begin a batch; with `presealed` that fits the tree found, finish it with that head at once. */
  begin(data: readonly Uint8Array[], presealed?: Presealed): Begun {
    // IMMEDIATE: take the write lock up front so writers in other processes queue behind it.
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const size = this.r.size();
      const done = integrate(size, this.r.nodes(frontier(size)), data, nativeHasher);
      // One statement per row: multi-row INSERTs of 200 rows measured twice as slow here.
      for (const n of done.nodes) {
        if (n.level === 0) this.ins.leaf().run(n.index, data[n.index - size]!, n.hash);
        else this.ins.node().run(n.level, n.index, n.hash);
      }
      const b: Begun = {
        firstIndex: size,
        size: size + data.length,
        root: done.root,
        previous: this.r.latestHeads(1)[0],
        frontier: done.frontier,
      };
      if (presealFits(presealed, size, b.previous, toHex(done.root))) b.committed = this.finish(presealed.head);
      return b;
    } catch (e) {
      this.abort();
      throw e;
    }
  }

  finish(h: NewHead): number {
    try {
      const id = Number(
        this.ins.head().run(h.tree_size, h.root_hash, h.timestamp, h.signed, h.receipt, h.key_hex, h.recorded).lastInsertRowid,
      );
      this.db.exec('COMMIT');
      return id;
    } catch (e) {
      this.abort();
      throw e;
    }
  }

  abort(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }
}
