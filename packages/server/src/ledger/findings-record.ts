// What the last full check of this data folder's log found, kept beside it, so that a process
// that opens the folder without reading the whole log (svc issue, openIssuer, a server starting)
// withholds what another process's full check found (issue 56). Written when a full check
// withholds the head, removed when one passes; a file that cannot be read withholds too.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Why the head is withheld (the spec's sth_withheld values). */
export type Withheld = 'rollback' | 'fork' | 'unverifiable';

export interface RecordedFindings {
  withheld: Withheld;
  inconsistent_sizes: number[];
  forked_sizes: number[];
  /** When the check that found it ended (ms since the epoch). */
  found: number;
}

export interface FindingsRecord {
  /** What was found, or null when the last full check passed (or none withheld). */
  read(): RecordedFindings | null;
  write(f: RecordedFindings): void;
  clear(): void;
}

const WITHHELD: readonly Withheld[] = ['rollback', 'fork', 'unverifiable'];
const sizes = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => Number.isSafeInteger(n) && n >= 0);

/** A damaged record reads as unverifiable: it cannot vouch for the log, so it withholds. */
export function parseFindings(text: string): RecordedFindings {
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    if (WITHHELD.includes(o.withheld as Withheld) && sizes(o.inconsistent_sizes) && sizes(o.forked_sizes) && Number.isSafeInteger(o.found))
      return o as unknown as RecordedFindings;
  } catch {
    // damaged: below
  }
  return { withheld: 'unverifiable', inconsistent_sizes: [], forked_sizes: [], found: 0 };
}

/** `<data>/ledger-findings.json`. */
export function findingsFile(dataDir: string): string {
  return join(dataDir, 'ledger-findings.json');
}

export class FileFindingsRecord implements FindingsRecord {
  constructor(readonly file: string) {}

  read(): RecordedFindings | null {
    if (!existsSync(this.file)) return null;
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return parseFindings('');
    }
    return parseFindings(text);
  }

  write(f: RecordedFindings): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(f)}\n`, { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  clear(): void {
    rmSync(this.file, { force: true });
  }
}
