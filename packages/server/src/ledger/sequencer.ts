// Batched integration, as Tessera does it: appends queue up and are integrated together under one
// signed head, at most once per interval, instead of a head per append. Each append settles with
// the result of the batch it joined: its first index and the head that covers it, or the error.
import type { HeadRow } from './store.js';

export interface Appended {
  firstIndex: number;
  head: HeadRow;
}

interface Waiting {
  data: Uint8Array[];
  resolve: (r: Appended) => void;
  reject: (e: unknown) => void;
}

export interface SequencerOptions {
  /** Least milliseconds from the start of one batch to the start of the next (0: every event-loop turn). */
  batchMs: number;
  /** The most leaves one batch takes (appends are never split across batches). */
  maxBatch?: number;
  /** Timer, injectable for tests. */
  setTimer?: (run: () => void, ms: number) => void;
}

export class Sequencer {
  private queue: Waiting[] = [];
  private queued = 0;
  private timer = false;
  private running: Promise<void> | null = null;
  /** When the last batch started: batches start at most once per interval, measured start to start. */
  private lastStart = -Infinity;
  private readonly maxBatch: number;
  private readonly setTimer: (run: () => void, ms: number) => void;

  constructor(
    private readonly integrate: (batch: Uint8Array[]) => Promise<Appended>,
    private readonly o: SequencerOptions,
  ) {
    this.maxBatch = o.maxBatch ?? 100_000;
    this.setTimer = o.setTimer ?? ((run, ms) => (ms > 0 ? setTimeout(run, ms) : setImmediate(run)));
  }

  add(data: Uint8Array[]): Promise<Appended> {
    return new Promise((resolve, reject) => {
      this.queue.push({ data, resolve, reject });
      this.queued += data.length;
      if (this.queued >= this.maxBatch) void this.drain();
      else this.schedule();
    });
  }

  /** Integrate everything queued now; resolves when the queue is empty (whatever each batch's outcome). */
  async flush(): Promise<void> {
    while (this.running || this.queue.length > 0) await this.drain();
  }

  private schedule(): void {
    if (this.timer || this.running) return;
    this.timer = true;
    // At most one batch per interval, start to start: an append to an idle log is integrated at
    // once, and a batch that took longer than the interval is followed at once, so a busy log
    // integrates back to back instead of idling after each batch.
    const wait = Math.max(0, this.lastStart + this.o.batchMs - performance.now());
    this.setTimer(() => {
      this.timer = false;
      void this.drain();
    }, wait);
  }

  private drain(): Promise<void> {
    if (this.running) return this.running;
    if (this.queue.length === 0) return Promise.resolve();
    const run = async () => {
      this.lastStart = performance.now();
      // One batch: whole appends, up to maxBatch leaves (an append larger than that goes alone).
      const batch: Waiting[] = [];
      let n = 0;
      while (this.queue.length > 0 && (batch.length === 0 || n + this.queue[0]!.data.length <= this.maxBatch)) {
        const w = this.queue.shift()!;
        batch.push(w);
        n += w.data.length;
      }
      this.queued -= n;
      try {
        const r = await this.integrate(batch.flatMap((w) => w.data));
        let at = r.firstIndex;
        for (const w of batch) {
          w.resolve({ firstIndex: at, head: r.head });
          at += w.data.length;
        }
      } catch (e) {
        for (const w of batch) w.reject(e);
      }
    };
    this.running = run().finally(() => {
      this.running = null;
      if (this.queue.length > 0) {
        if (this.queued >= this.maxBatch) void this.drain();
        else this.schedule();
      }
    });
    return this.running;
  }
}
