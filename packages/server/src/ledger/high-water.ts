// The largest head this data folder ever signed, kept beside the keys and outside the ledger
// store. A store that comes back empty, shorter, or without its heads (a zero-length file, a
// dropped table, a restored old copy) then reads as a rollback, never as a fresh start. (Called
// sth-witness.json before "witness" came to mean a C2SP witness; that name is still read.)
import { existsSync, readFileSync, statSync, renameSync, writeFileSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';

export interface HighWaterHead {
  tree_size: number;
  root_hash: string;
}

export interface HighWater {
  /** The largest signed head on record; null when none was ever signed. Throws if unreadable. */
  read(): HighWaterHead | null;
  /** Record a newly signed head when it is larger than the one on record. */
  advance(head: HighWaterHead): void;
  /** Changes whenever what `read` returns may have changed (cheap: read on every ledger request). */
  version?(): string;
}

export function parseHighWater(text: string): HighWaterHead {
  const v: unknown = JSON.parse(text);
  const o = v as Record<string, unknown>;
  if (
    typeof v !== 'object' ||
    v === null ||
    !Number.isSafeInteger(o.tree_size) ||
    (o.tree_size as number) < 0 ||
    typeof o.root_hash !== 'string' ||
    !/^[0-9a-f]{64}$/.test(o.root_hash)
  ) {
    throw new Error('highWater file is damaged');
  }
  return { tree_size: o.tree_size as number, root_hash: o.root_hash };
}

export class FileHighWater implements HighWater {
  /** `legacy`: the file's former name, read while the current one does not exist. */
  constructor(
    readonly file: string,
    readonly legacy?: string,
  ) {}

  private current(): string | null {
    if (existsSync(this.file)) return this.file;
    return this.legacy && existsSync(this.legacy) ? this.legacy : null;
  }

  version(): string {
    const f = this.current();
    if (!f) return 'none';
    try {
      const st = statSync(f);
      return `${f === this.file ? 'new' : 'old'}:${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      return 'none';
    }
  }

  read(): HighWaterHead | null {
    const f = this.current();
    if (!f) return null;
    return parseHighWater(readFileSync(f, 'utf8'));
  }

  advance(head: HighWaterHead): void {
    let current: HighWaterHead | null = null;
    try {
      current = this.read();
    } catch {
      // A damaged high-water mark stays damaged: the audit reports it, and it is never silently replaced.
      return;
    }
    if (current && current.tree_size >= head.tree_size) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ tree_size: head.tree_size, root_hash: head.root_hash })}\n`, { mode: 0o600 });
    const fd = openSync(tmp, 'r');
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.file);
  }
}

/** Where a data folder keeps its high-water mark: with the keys, which outlive any one ledger file. */
export function highWaterFile(dataDir: string): string {
  return join(dataDir, 'keys', 'high-water.json');
}

/** The name data folders made before this release keep it under. */
export function legacyHighWaterFile(dataDir: string): string {
  return join(dataDir, 'keys', 'sth-witness.json');
}

/** For stores with no data folder (tests, benchmarks): the high-water mark lives in memory. */
export class MemoryHighWater implements HighWater {
  private head: HighWaterHead | null = null;
  read(): HighWaterHead | null {
    return this.head;
  }
  advance(head: HighWaterHead): void {
    if (!this.head || head.tree_size > this.head.tree_size) this.head = { ...head };
  }
}
