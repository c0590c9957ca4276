// Messages between the server and its SQLite storage process (process.ts, process-entry.ts).
import type { EntrySubject, HeadRow, LedgerReads, NewHead, Presealed } from '../store.js';

/** Exit code of a storage process that found its files replaced: another starts at once. */
export const REPLACED = 75;

export const READS = [
  'size',
  'nodes',
  'leaves',
  'findByData',
  'findAllByData',
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
  | { id: number; op: 'sequence'; data: Uint8Array[]; presealed?: Presealed }
  | { id: number; op: 'pragma'; text: string }
  /** A whole proof in one round trip, read by the storage process. */
  | { id: number; op: 'prove-inclusion'; subject: EntrySubject; treeSize?: number; withRoot: boolean }
  | { id: number; op: 'prove-consistency'; first: number; second?: number }
  /** The answer to a `seal` request: the signed head, or why there is none. */
  | { op: 'sealed'; seal: number; head?: NewHead; error?: string };

export type FromStorage =
  | { op: 'ready' }
  | { op: 'failed'; message: string }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; message: string; damage: boolean }
  /** Inside a sequencing transaction: sign the head for this size and root. */
  | { op: 'seal'; seal: number; size: number; root: Uint8Array; previous: HeadRow | undefined };

/**
 * Messages cross as JSON (measured here: a round trip p50 0.10 ms, p99 0.51 ms, against 0.16 and
 * 1.07 ms with the structured-clone serializer), so bytes travel as `{"$b": hex}`.
 */
export function pack(v: unknown): unknown {
  if (v instanceof Uint8Array) return { $b: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') };
  if (Array.isArray(v)) return v.map(pack);
  if (v !== null && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = pack(x);
    return o;
  }
  return v;
}

export function unpack(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unpack);
  if (v !== null && typeof v === 'object') {
    const b = (v as { $b?: unknown }).$b;
    if (typeof b === 'string') return new Uint8Array(Buffer.from(b, 'hex'));
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = unpack(x);
    return o;
  }
  return v;
}
