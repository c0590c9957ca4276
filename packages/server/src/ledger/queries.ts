// The ledger's read side: typed questions about the log (heads, proofs, history, checkpoints,
// tiles), each answered from the store after the same audit gate, never parsing a request itself
// (the ledger routes do that). Proofs and tiles are data and are served whatever the audit says;
// signed statements (heads, checkpoints) are withheld with the audit's reason.
import type { Names } from '@svc/core';
import { fromHex, toHex } from '@svc/core/primitives';
import { leafHash } from '@svc/core/merkle';
import { issueConsistency, publishedKey, type SthBundle } from '@svc/core/issue';
import type { TileId } from '@svc/core/tlog';
import { LedgerError, ledgerUnavailable } from './errors.js';
import type { CheckpointSigner, ConsistencyBody, HistoryBody, InclusionBody, LedgerQueries, LedgerSthBody } from './api.js';
import { guard, type AuditGate } from './gate.js';
import type { InclusionQuery } from './inclusion-request.js';
import { holdsTree, readPaths, readTile, rootAt } from './reads.js';
import type { HeadRow, LedgerStore } from './store.js';

export const LEAF_HASHING =
  'leaf = the 32 raw bytes of answer_sha256; leaf_hash = SHA-256(0x00 || leaf); node = SHA-256(0x01 || left || right); empty root = SHA-256("")';
export const ALGO = 'RFC6962-SHA256';
const SIGNED_CHECKPOINTS = 20;

export interface QueryOptions {
  store: LedgerStore;
  names: Names;
  log: string;
  /** Whether a tree-head public key is still published (current or historic). */
  isPublished: (publicKeyHex: string) => boolean;
  /** Signs checkpoints of the heads (c2sp.org/tlog-checkpoint); without it there are none (404). */
  checkpoints?: CheckpointSigner;
}

export class LedgerReadModel implements LedgerQueries {
  private rootCache: { size: number; version: string; root: string } | null = null;

  constructor(
    private readonly o: QueryOptions,
    private readonly gate: AuditGate,
  ) {}

  private checked() {
    return this.gate.checked();
  }

  /** The head's root at a size, kept for the store version the audit last saw (heads are read often, the tree changes once a batch). */
  private async root(size: number): Promise<string> {
    const c = this.rootCache;
    if (c && c.size === size && c.version === this.gate.version) return c.root;
    const root = toHex(await rootAt(this.o.store, size));
    this.rootCache = { size, version: this.gate.version, root };
    return root;
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

  inclusion(q: InclusionQuery): Promise<InclusionBody> {
    const { data, leaf } = q;
    return guard(async () => {
      // A proof is data, served whatever the audit says (as tiles are), so it waits on no audit read:
      // through the storage process it is one round trip.
      const r = await this.o.store.proveInclusion(data ? { data } : { leaf: leaf! }, q.treeSize, true);
      const t = q.treeSize ?? r.size;
      if (q.treeSize !== undefined && !holdsTree(t, r.size))
        throw new LedgerError('out_of_range', `tree_size must be an integer from 1 to ${r.size}`);
      if (r.index === undefined || r.index >= t || !r.proof || !r.root) return { found: false };
      return {
        found: true,
        leaf: toHex(data ? leafHash(data) : leaf!),
        index: r.index,
        tree_size: t,
        root_hash: toHex(r.root),
        proof: r.proof.map(toHex),
      };
    });
  }

  /** Whether an entry is in the log (its index), without a proof: one index lookup. */
  find(data: Uint8Array): Promise<number | undefined> {
    return guard(() => this.o.store.findByData(data));
  }

  /** The index of each entry at the current size, or undefined: one round trip for many. */
  findAll(data: readonly Uint8Array[]): Promise<(number | undefined)[]> {
    return guard(() => this.o.store.findAllByData(data));
  }

  paths(indexes: readonly number[], treeSize: number): Promise<Uint8Array[][]> {
    return guard(async () => {
      const size = await this.o.store.size();
      if (!holdsTree(treeSize, size)) throw new LedgerError('out_of_range', `tree_size must be an integer from 1 to ${size}`);
      if (!indexes.every((i) => Number.isSafeInteger(i) && i >= 0 && i < treeSize))
        throw new LedgerError('out_of_range', `every index must be an integer from 0 to ${treeSize - 1}`);
      return indexes.length ? readPaths(this.o.store, indexes, treeSize) : [];
    });
  }

  consistency(first: number, second: number | undefined, signed: boolean): Promise<ConsistencyBody> {
    return guard(async () => {
      const store = this.o.store;
      // The proof and both roots read whole, beside the audit.
      const [w, r] = await Promise.all([this.checked(), store.proveConsistency(first, second)]);
      const size = r.size;
      const b = second ?? size;
      if (!holdsTree(first, size)) throw new LedgerError('out_of_range', `first must be from 1 to ${size}`);
      if (!holdsTree(b, size) || b < first) throw new LedgerError('out_of_range', `second must be from ${first} to ${size}`);
      const { proof, oldRoot, newRoot } = r as Required<typeof r>;
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
      const bundle = issueConsistency(this.sthOf(oldHead, true), this.sthOf(newHead, true), proof, {
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
      const a = this.gate.audit;
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
}
