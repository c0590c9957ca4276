// A value made from a file that an operator edits while the server runs (the issuing tokens, the
// council seats): made again whenever the file's inode, size, modification time, mode or change
// time changes (a chmod that makes a token file safe again takes effect at once), and only then. One stat per use; `make` is told whether the file is there.
import { statSync } from 'node:fs';

/**
 * The current value of a file, remade on change.
 *
 * @example
 * ```ts
 * const current = rereadOnChange('./data/issue-tokens', (present) => (present ? parse(readFileSync(path, 'utf8')) : []));
 * current(); // parsed once, then again only after the file changes
 * ```
 */
export function rereadOnChange<T>(path: string, make: (present: boolean) => T): () => T {
  let seen: string | null = null;
  let value: T;
  return () => {
    let stamp: string;
    try {
      const s = statSync(path);
      stamp = `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.mode}`;
    } catch {
      stamp = 'missing';
    }
    if (stamp !== seen) {
      seen = stamp;
      value = make(stamp !== 'missing');
    }
    return value;
  };
}
