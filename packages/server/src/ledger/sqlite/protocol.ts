// Messages between the server and its SQLite storage process (process.ts, process-entry.ts).
import type { HeadRow, LedgerReads, NewHead } from '../store.js';

/** Exit code of a storage process that found its files replaced: another starts at once. */
export const REPLACED = 75;

export const READS = [
  'size',
  'nodes',
  'leaves',
  'findByData',
  'findByLeafHash',
  'heads',
  'latestHeads',
  'headAtSize',
  'headCount',
  'maxHeadSize',
] as const satisfies readonly (keyof LedgerReads)[];
export type ReadName = (typeof READS)[number];

export type ToStorage =
  | { id: number; op: 'read'; name: ReadName; args: unknown[]; snap: boolean }
  | { id: number; op: 'version' | 'snapshot-begin' | 'snapshot-end' | 'close' }
  | { id: number; op: 'sequence'; data: Uint8Array[] }
  | { id: number; op: 'pragma'; text: string }
  /** The answer to a `seal` request: the signed head, or why there is none. */
  | { op: 'sealed'; seal: number; head?: NewHead; error?: string };

export type FromStorage =
  | { op: 'ready' }
  | { op: 'failed'; message: string }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; message: string; damage: boolean }
  /** Inside a sequencing transaction: sign the head for this size and root. */
  | { op: 'seal'; seal: number; size: number; root: Uint8Array; previous: HeadRow | undefined };
