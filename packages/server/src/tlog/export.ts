// The static mirror: a log's checkpoint, tiles and entry bundles written as files any static web
// server or CDN serves as they are (c2sp.org/tlog-tiles paths under one folder). Incremental: only
// tiles that changed since the checkpoint already there are written; a rerun with nothing new
// writes nothing. Every file goes in by rename, the checkpoint last, and an export never writes a
// tile that disagrees with a checkpoint already in the folder (that would be a fork: refused), nor
// a checkpoint older than the one there (exports that overlap, a cron job running long: the later
// checkpoint stays).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bytesEqual, toHex } from '@svc/core/primitives';
import { TILE_WIDTH, parseCheckpoint, parseNote, tilePath, tileWidth, type TileId } from '@svc/core/tlog';
import { LedgerError } from '../ledger/errors.js';
import { readTile, rootAt } from '../ledger/reads.js';
import type { LedgerReads } from '../ledger/store.js';

export interface ExportResult {
  /** Tree size of the checkpoint in the folder before, and after. */
  from: number;
  to: number;
  /** Files written (tiles, bundles, and the checkpoint when it changed). */
  written: number;
}

function writeAtomic(file: string, data: Uint8Array | string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** The size and root of the checkpoint already exported, or null for an empty folder. */
function exported(dir: string): { size: number; root: Uint8Array; text: string } | null {
  const file = join(dir, 'checkpoint');
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8');
  try {
    const c = parseCheckpoint(parseNote(text).text);
    return { size: c.size, root: c.root, text };
  } catch (e) {
    throw new LedgerError('invalid_request', `${file} is not a checkpoint (${(e as Error).message}); export to an empty folder`);
  }
}

/** Every tile (and entry bundle) whose content differs between sizes `from` and `to`. */
export function changedTiles(from: number, to: number): TileId[] {
  const out: TileId[] = [];
  for (let level = 0; level < 64; level++) {
    const atTo = Math.floor(to / 2 ** (8 * level));
    if (atTo === 0) break;
    const atFrom = Math.floor(from / 2 ** (8 * level));
    if (atFrom === atTo) continue;
    for (let n = Math.floor(atFrom / TILE_WIDTH); n * TILE_WIDTH < atTo; n++) {
      const width = tileWidth(level, n, to);
      out.push({ level, index: n, width });
      if (level === 0) out.push({ level: 'entries', index: n, width });
    }
  }
  return out;
}

// WF-MIRROR
/**
 * Export the tree at `checkpoint` (a signed note of this store's latest head) into `dir`.
 * `progress` is told how many of the changed files are done.
 */
export async function exportTiles(
  store: Pick<LedgerReads, 'nodes' | 'leaves'> & { kind?: string },
  checkpoint: string,
  dir: string,
  progress?: (done: number, total: number) => void,
): Promise<ExportResult> {
  const head = parseCheckpoint(parseNote(checkpoint).text);
  const before = exported(dir);
  if (before) {
    if (before.size > head.size)
      throw new LedgerError('withheld', `the folder holds a checkpoint of ${before.size} leaves, the log only ${head.size}: a rollback`);
    const root = await rootAt(store, before.size);
    if (!bytesEqual(root, before.root))
      throw new LedgerError(
        'withheld',
        `the folder's checkpoint at ${before.size} leaves has root ${toHex(before.root)}, the log ${toHex(root)}: a fork`,
      );
  }
  const from = before?.size ?? 0;
  const tiles = changedTiles(from, head.size);
  let written = 0;
  for (const [i, t] of tiles.entries()) {
    const file = join(dir, tilePath(t));
    // A full tile never changes: one already there stays.
    if (!(t.width === TILE_WIDTH && existsSync(file))) {
      const bytes = await readTile(store, t, head.size, { rangeReads: store.kind === 'postgres' });
      if (!bytes) throw new LedgerError('unavailable', `the log does not hold ${tilePath(t)} at ${head.size} leaves`);
      writeAtomic(file, bytes);
      written++;
    }
    progress?.(i + 1, tiles.length);
  }
  if (before?.text !== checkpoint && (await writeCheckpointIfNewer(dir, checkpoint, head.size))) written++;
  return { from, to: head.size, written };
}

/** A lock older than this was left by a run that died inside the few milliseconds it is held. */
const STALE_LOCK_MS = 30_000;

/**
 * Write the folder's checkpoint unless the one there by now is larger: the comparison and the
 * write hold a lock file (created exclusively), so two overlapping exports cannot interleave them.
 * Returns whether it wrote.
 */
async function writeCheckpointIfNewer(dir: string, checkpoint: string, size: number): Promise<boolean> {
  const lock = join(dir, '.checkpoint.lock');
  for (let waited = 0; ; waited += 20) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
      } catch {
        // released meanwhile
      }
      if (waited > STALE_LOCK_MS + 5_000) throw new LedgerError('unavailable', `${lock} is held by another export`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  try {
    const now = exported(dir);
    if (now && now.size > size) return false;
    writeAtomic(join(dir, 'checkpoint'), checkpoint);
    return true;
  } finally {
    unlinkSync(lock);
  }
}
