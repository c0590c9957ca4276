// `svc mirror`: a tlog-mirror (c2sp.org/tlog-mirror) of the logs a tlog-policy file names. It keeps
// log-signed checkpoints as pending (add-checkpoint, checked as a witness checks them, never
// cosigned then), takes entries in packages each proved into one of them (add-entries, streamed:
// a package is verified and committed as it arrives), recomputes the root from what it stored,
// and only then cosigns, with keys and a name of its own. It serves each log as tlog-tiles under
// <prefix>/<sha256(origin)>/, its cosigned checkpoint there too.
import { MemoryTree, treeRoot } from '@svc/core/merkle';
import {
  AddEntriesReader,
  MIRROR_INFO_TYPE,
  TileReader,
  TlogError,
  checkUpload,
  formatMirrorInfo,
  mirrorCosign,
  parseTilePath,
  verifyPackage,
  type EntryPackage,
  type NoteSigner,
  type Policy,
  type TileId,
} from '@svc/core/tlog';
import type { Keyring } from '../keys/keyring.js';
import { LedgerError } from '../ledger/errors.js';
import { nativeHasher } from '../ledger/hasher.js';
import { readTile } from '../ledger/reads.js';
import type { Logger } from '../log.js';
import { AddCheckpointQueue, TEXT, cosigner, vkeysText, type Cosigner, type WitnessReply } from '../witness/cosigner.js';
import type { MirrorNode, MirrorStates } from './store.js';

/** Packages one add-entries request may commit before it is answered 202 (tlog-mirror asks clients for at most 32). */
export const MAX_PACKAGES_PER_REQUEST = 64;
/** Uploads read at once; past it, 503 (each holds up to two packages, 34 MB at the uint16 bounds). */
export const MAX_UPLOADS = 8;

export interface MirrorOptions {
  /** The mirror's key name: its identity in cosignature lines and policies, never a witness's. */
  name: string;
  policy: Policy;
  ring: Keyring;
  store: MirrorStates;
  log: Logger;
  /** Milliseconds; cosignature timestamps are its whole seconds. */
  now?: () => number;
}

const reply = (status: number, body: string, contentType = TEXT): WitnessReply => ({ status, body, contentType });
const NO_HASH = new Uint8Array(32);

export class Mirror {
  readonly signers: NoteSigner[];
  private readonly c: Cosigner;
  private readonly queue: AddCheckpointQueue;
  private readonly now: () => number;
  private uploads = 0;

  constructor(private readonly o: MirrorOptions) {
    this.c = cosigner(o.name, o.policy, o.ring, o.log, 'mirror');
    this.signers = this.c.signers;
    this.now = o.now ?? Date.now;
    // Pending checkpoints are decided with no signers: the mirror must not sign before it holds the entries.
    this.queue = new AddCheckpointQueue({
      c: this.c,
      signers: [],
      transact: (decides, now, origins) => o.store.transactPending(decides, now, origins),
      log: o.log,
      now: this.now,
      event: 'mirror',
    });
  }

  /** The origins of the logs it mirrors. */
  get origins(): string[] {
    return [...this.c.logs.keys()];
  }

  vkeys(): string {
    return vkeysText(this.c);
  }

  /** POST add-checkpoint: the pending checkpoint moves (200, an empty body), nothing is signed. */
  addCheckpoint(body: Uint8Array): Promise<WitnessReply> {
    return this.queue.submit(body);
  }

  /** Whether another upload may be read now (each holds memory until it is answered). */
  admit(): boolean {
    if (this.uploads >= MAX_UPLOADS) return false;
    this.uploads++;
    return true;
  }

  release(): void {
    this.uploads = Math.max(0, this.uploads - 1);
  }

  /** Uploads being read now. */
  get inFlight(): number {
    return this.uploads;
  }

  // WF-MIRROR-ENTRIES
  /**
   * POST add-entries, read as it arrives: the header is checked before any package is read, each
   * package is proved and committed on its own, and the answer says how far the mirror got (202
   * with mirror-info for a prefix, 200 with its cosignature once it holds the whole tree).
   */
  async addEntries(body: AsyncIterable<Uint8Array>): Promise<WitnessReply> {
    try {
      return await this.upload(body);
    } catch (e) {
      if (e instanceof LedgerError) throw e;
      this.o.log('mirror_store_error', { error: e instanceof Error ? e.message : String(e) });
      throw new LedgerError('unavailable', 'the mirror could not keep the entries; retry');
    }
  }

  private async upload(body: AsyncIterable<Uint8Array>): Promise<WitnessReply> {
    const r = new AddEntriesReader();
    let origin = '';
    let head: { start: number; end: number } | null = null;
    let checkpoint: { size: number; root: Uint8Array } | null = null;
    let saved = 0;
    let cut = false;
    // Bytes of the body read (after gzip): a refusal says how much it took, a bomb's is one chunk.
    let received = 0;
    try {
      read: for await (const chunk of cutOff(body)) {
        received += chunk.length;
        r.push(chunk);
        if (!checkpoint) {
          const h = r.header();
          if (!h) continue;
          origin = h.origin;
          head = h;
          const check = checkUpload(h, this.c.logs.has(h.origin) ? await this.o.store.state(h.origin) : undefined);
          if (!check.ok) {
            this.o.log('mirror_refused_upload', {
              origin: this.c.logs.has(h.origin) ? h.origin : null,
              status: check.status,
              start: h.start,
              end: h.end,
              received,
            });
            return reply(check.status, check.body, check.contentType);
          }
          checkpoint = check.checkpoint;
        }
        for (let p = r.next(); p; p = r.next()) {
          if (!(await this.keep(origin, p, checkpoint))) {
            this.o.log('mirror_refused_package', { origin, start: p.start, end: p.end, size: checkpoint.size });
            return reply(422, `the package of entries [${p.start}, ${p.end}) is not in the checkpoint of size ${checkpoint.size}\n`);
          }
          if (++saved >= MAX_PACKAGES_PER_REQUEST && !r.packages.complete) break read;
        }
      }
    } catch (e) {
      // A body cut off, or bytes that can never be a package: what was committed before stays.
      if (!(e instanceof TlogError) && !(e instanceof BodyCut)) throw e;
      cut = true;
    }
    if (!head || !checkpoint) return reply(400, 'the add-entries header did not arrive whole\n');
    if (!r.packages.complete || cut) {
      if (saved === 0) return reply(400, 'no whole entry package arrived\n');
      return this.info(202, origin, head.end);
    }
    if (r.pending > 0) return reply(400, 'bytes follow the last entry package\n');
    return this.finish(origin, checkpoint);
  }

  /** Prove one package into the checkpoint and commit it with the subtrees it completes; false if it does not verify. */
  private async keep(origin: string, p: EntryPackage, checkpoint: { size: number; root: Uint8Array }): Promise<boolean> {
    const held = p.start > p.subtreeStart ? await this.o.store.leafHashes(origin, p.subtreeStart, p.start) : [];
    // node:crypto's SHA-256 (a third faster than the core's): proving and storing are all hashing.
    if (!verifyPackage(p, held, checkpoint, nativeHasher)) return false;
    const hashes = p.entries.map((e) => nativeHasher.leaf(e));
    await this.o.store.putPackage(origin, p.start, p.entries, hashes, await this.completed(origin, p.end, [...held, ...hashes]));
    return true;
  }

  /**
   * The subtrees of heights 8, 16, ... that end at `end` (tiles above level 0 are made of them),
   * from the package's leaf hashes and, for each level up, the 255 siblings already stored.
   */
  private async completed(origin: string, end: number, leaves: Uint8Array[]): Promise<MirrorNode[]> {
    const out: MirrorNode[] = [];
    let hashes = leaves;
    let count = end;
    let level = 0;
    while (count % 256 === 0 && hashes.length === 256) {
      const t = new MemoryTree(nativeHasher);
      for (const h of hashes) t.appendLeafHash(h);
      const hash = treeRoot(t, 256);
      level += 8;
      count /= 256;
      out.push({ level, index: count - 1, hash });
      if (count % 256 !== 0) break;
      hashes = [...(await this.o.store.nodes(origin, level, count - 256, count - 1)), hash];
    }
    return out;
  }

  /** All of [0, size) is held: check the root from the stored tiles, cosign, and move the mirror checkpoint. */
  private async finish(origin: string, checkpoint: { size: number; root: Uint8Array }): Promise<WitnessReply> {
    const state = await this.o.store.state(origin);
    if (state.next < checkpoint.size) return this.info(202, origin, checkpoint.size);
    // The packages proved it; this proves what was stored (a store that lost or altered a row
    // since would be cosigned otherwise).
    await new TileReader((path) => this.tileBytes(origin, path, checkpoint.size), checkpoint).checkRoot();
    const pending =
      (await this.o.store.pendingCheckpoint(origin, checkpoint.size)) ??
      (state.mirrored.size === checkpoint.size ? (await this.o.store.mirrored(origin))?.checkpoint : undefined);
    if (!pending) return this.info(409, origin, state.pending[0]?.size ?? state.mirrored.size);
    const now = this.now();
    const signed = mirrorCosign(pending, this.signers, Math.max(1, Math.floor(now / 1000)));
    if (!(await this.o.store.commit(origin, checkpoint.size, checkpoint.root, signed.checkpoint, now))) {
      const s = await this.o.store.state(origin);
      return this.info(409, origin, s.pending[0]?.size ?? s.mirrored.size);
    }
    this.o.log('mirror_cosigned', { origin, size: checkpoint.size });
    return reply(200, signed.lines);
  }

  private async info(status: 202 | 409, origin: string, size: number): Promise<WitnessReply> {
    const { next } = await this.o.store.state(origin);
    return reply(status, formatMirrorInfo({ size, next, ticket: new Uint8Array(0) }), MIRROR_INFO_TYPE);
  }

  private async tileBytes(origin: string, path: string, size: number): Promise<Uint8Array> {
    const id = parseTilePath(path);
    const bytes = id ? await this.tileAt(origin, id, size) : null;
    if (!bytes) throw new TlogError('malformed_tile', `the mirror holds no ${path} at size ${size}`);
    return bytes;
  }

  // The ledger's tile rule (WF-TILES) over this store: level-0 hashes and entries from the entry
  // rows, the hashes above from the stored subtrees of that height.
  private tileAt(origin: string, id: TileId, size: number): Promise<Uint8Array | null> {
    const store = this.o.store;
    return readTile(
      {
        nodes: async (ids) => {
          const first = ids[0]!;
          return first.level === 0
            ? store.leafHashes(origin, first.index, first.index + ids.length)
            : store.nodes(origin, first.level, first.index, first.index + ids.length);
        },
        leaves: async (start, end) => (await store.entries(origin, start, end)).map((data) => ({ data, hash: NO_HASH })),
      },
      id,
      size,
    );
  }

  /** A tile or entry bundle of a mirrored log at its mirror checkpoint, or null (not a log it mirrors, beyond the tree). */
  async tile(originHash: string, id: TileId): Promise<Uint8Array | null> {
    const origin = this.c.byHash.get(originHash);
    const m = origin === undefined ? null : await this.o.store.mirrored(origin);
    return m && origin !== undefined ? this.tileAt(origin, id, m.size) : null;
  }

  /** The mirror checkpoint of the log whose origin hashes to `originHash`, with its cosignature; null before any. */
  async checkpoint(originHash: string): Promise<string | null> {
    const origin = this.c.byHash.get(originHash);
    return origin === undefined ? null : ((await this.o.store.mirrored(origin))?.checkpoint ?? null);
  }
}

/** The body stopped before its end: a reset, an abort, the request deadline, gzip that does not inflate. */
class BodyCut extends Error {}

/** The body's chunks, its own failures told apart from the mirror's (a store error is never a cut-off upload). */
async function* cutOff(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  try {
    yield* body;
  } catch (e) {
    throw new BodyCut(e instanceof Error ? e.message : String(e));
  }
}
