// Writer-thread entry: owns a second connection to the ledger file and runs the leaf-storing half of
// each sequencing transaction, so hashing and inserting a batch overlap with the main thread's
// work. The head is signed on the main thread (keys stay there): before the batch when the main
// thread knows the tree (then both halves and the head are one round trip), else between the halves.
import { parentPort, workerData } from 'node:worker_threads';
import { open } from './db.js';
import type { NewHead, Presealed } from '../store.js';
import { Writer } from './write.js';

export type ToWriter =
  | { op: 'begin'; data: Uint8Array[]; presealed?: Presealed }
  | { op: 'finish'; head: NewHead }
  | { op: 'abort' }
  | { op: 'pragma'; text: string };
export type FromWriter =
  | { op: 'begun'; firstIndex: number; size: number; root: Uint8Array; previous: unknown; frontier: Uint8Array[] }
  | { op: 'finished'; id: number }
  /** Begun and, the head signed beforehand fitting, committed with it: one round trip. */
  | { op: 'committed'; id: number; firstIndex: number; size: number; root: Uint8Array; previous: unknown; frontier: Uint8Array[] }
  | { op: 'aborted' }
  | { op: 'pragma'; value: unknown }
  | { op: 'error'; message: string };

const writer = new Writer(open((workerData as { file: string }).file));

parentPort!.on('message', (m: ToWriter) => {
  try {
    if (m.op === 'begin') {
      const { committed, ...b } = writer.begin(m.data, m.presealed);
      parentPort!.postMessage(
        (committed !== undefined ? { op: 'committed', id: committed, ...b } : { op: 'begun', ...b }) satisfies FromWriter,
      );
    } else if (m.op === 'finish') parentPort!.postMessage({ op: 'finished', id: writer.finish(m.head) } satisfies FromWriter);
    else if (m.op === 'abort') {
      writer.abort();
      parentPort!.postMessage({ op: 'aborted' } satisfies FromWriter);
    } else parentPort!.postMessage({ op: 'pragma', value: writer.db.pragma(m.text) } satisfies FromWriter);
  } catch (e) {
    parentPort!.postMessage({ op: 'error', message: e instanceof Error ? e.message : String(e) } satisfies FromWriter);
  }
});
