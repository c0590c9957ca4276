// The largest head this data folder ever signed, kept beside the keys and outside the ledger
// store. A store that comes back empty, shorter, or without its heads (a zero-length file, a
// dropped table, a restored old copy) then reads as a rollback, never as a fresh start.
import { existsSync, readFileSync, statSync, renameSync, writeFileSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';

export interface WitnessHead {
  tree_size: number;
  root_hash: string;
}

export interface Witness {
  /** The largest signed head on record; null when none was ever signed. Throws if unreadable. */
  read(): WitnessHead | null;
  /** Record a newly signed head when it is larger than the one on record. */
  advance(head: WitnessHead): void;
  /** Changes whenever what `read` returns may have changed (cheap: read on every ledger request). */
  version?(): string;
}

export function parseWitness(text: string): WitnessHead {
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
    throw new Error('witness file is damaged');
  }
  return { tree_size: o.tree_size as number, root_hash: o.root_hash };
}

export class FileWitness implements Witness {
  constructor(readonly file: string) {}

  version(): string {
    try {
      const st = statSync(this.file);
      return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      return 'none';
    }
  }

  read(): WitnessHead | null {
    if (!existsSync(this.file)) return null;
    return parseWitness(readFileSync(this.file, 'utf8'));
  }

  advance(head: WitnessHead): void {
    let current: WitnessHead | null = null;
    try {
      current = this.read();
    } catch {
      // A damaged witness stays damaged: the audit reports it, and it is never silently replaced.
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

/** Where a data folder keeps its witness: with the keys, which outlive any one ledger file. */
export function witnessFile(dataDir: string): string {
  return join(dataDir, 'keys', 'sth-witness.json');
}

/** For stores with no data folder (tests, benchmarks): the witness lives in memory. */
export class MemoryWitness implements Witness {
  private head: WitnessHead | null = null;
  read(): WitnessHead | null {
    return this.head;
  }
  advance(head: WitnessHead): void {
    if (!this.head || head.tree_size > this.head.tree_size) this.head = { ...head };
  }
}
