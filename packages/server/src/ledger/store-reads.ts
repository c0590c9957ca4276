// The reads every store shares, answered by the connection(s) `reads` stands for, and a proof read
// whole from them; a store across a process boundary overrides the proofs to answer each in one
// round trip.
import type { NodeId } from '@svc/core/merkle';
import { readConsistency, readInclusion } from './reads.js';
import type { ConsistencyRead, EntrySubject, InclusionRead, LedgerReads } from './store.js';

/** The reads of a store, answered outside any snapshot by the connection(s) `reads` stands for. */
export abstract class StoreReads implements LedgerReads {
  protected abstract readonly reads: LedgerReads;
  size() {
    return this.reads.size();
  }
  nodes(ids: readonly NodeId[]) {
    return this.reads.nodes(ids);
  }
  leaves(start: number, end: number) {
    return this.reads.leaves(start, end);
  }
  findByData(data: Uint8Array) {
    return this.reads.findByData(data);
  }
  findAllByData(data: readonly Uint8Array[]) {
    return this.reads.findAllByData(data);
  }
  findByLeafHash(hash: Uint8Array) {
    return this.reads.findByLeafHash(hash);
  }
  heads(afterId: number, limit: number) {
    return this.reads.heads(afterId, limit);
  }
  latestHeads(limit: number) {
    return this.reads.latestHeads(limit);
  }
  headAtSize(size: number) {
    return this.reads.headAtSize(size);
  }
  headCount() {
    return this.reads.headCount();
  }
  maxHeadSize() {
    return this.reads.maxHeadSize();
  }
  proveInclusion(subject: EntrySubject, treeSize: number | undefined, withRoot: boolean): Promise<InclusionRead> {
    return readInclusion(this, subject, treeSize, withRoot);
  }
  proveConsistency(first: number, second: number | undefined): Promise<ConsistencyRead> {
    return readConsistency(this, first, second);
  }
}
