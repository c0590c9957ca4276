// The main thread's side of the SQLite writer thread (thread-entry.ts).
import { Worker } from 'node:worker_threads';
import { builtFile } from '../../entries.js';
import { serially } from '../serial.js';
import type { AsyncSeal, HeadRow, NewHead, Presealed, Sequenced } from '../store.js';
import type { FromWriter, ToWriter } from './thread-entry.js';

/**
 * The main thread's side of the writer thread: one request at a time, each answered once. A thread
 * that fails or exits rejects what was pending (its connection closes, so SQLite rolls the batch
 * back) and is replaced on the next call.
 */
export class WriterThread {
  private worker: Worker | null = null;
  private readonly serial = serially();
  /** Requests answered so far (each a round trip: two crossings). */
  roundTrips = 0;

  constructor(private readonly file: string) {}

  private call(msg: ToWriter): Promise<FromWriter> {
    this.worker ??= new Worker(builtFile('sqlite-writer.js', import.meta.url), { workerData: { file: this.file } });
    const w = this.worker;
    return new Promise((resolve, reject) => {
      const done = () => {
        w.off('message', onMessage);
        w.off('messageerror', onMessageError);
        w.off('error', onError);
        w.off('exit', onExit);
      };
      const onMessage = (m: FromWriter) => {
        done();
        if (m.op === 'error') reject(new Error(m.message));
        else resolve(m);
      };
      const gone = (why: string) => {
        done();
        if (this.worker === w) this.worker = null;
        reject(new Error(`ledger writer thread ${why}`));
      };
      const onError = (e: Error) => gone(`failed: ${e.message}`);
      const onExit = (code: number) => gone(`exited (${code})`);
      // A reply that cannot be read leaves the thread's transaction in an unknown state: replace it.
      const onMessageError = () => {
        void w.terminate();
        gone('sent a reply that could not be read');
      };
      w.on('message', onMessage);
      w.on('messageerror', onMessageError);
      w.on('error', onError);
      w.on('exit', onExit);
      this.roundTrips++;
      w.postMessage(msg);
    });
  }

  /**
   * The seal may be asynchronous here: the transaction is open on the thread's own connection. A
   * head signed beforehand for the state the thread finds is committed in the same round trip.
   */
  sequence(data: readonly Uint8Array[], seal: AsyncSeal, presealed?: Presealed): Promise<Sequenced> {
    return this.serial(async () => {
      const b = (await this.call({ op: 'begin', data: [...data], ...(presealed ? { presealed } : {}) })) as Extract<
        FromWriter,
        { op: 'begun' | 'committed' }
      >;
      if (b.op === 'committed') return { firstIndex: b.firstIndex, head: { id: b.id, ...presealed!.head }, frontier: b.frontier };
      let head: NewHead;
      try {
        head = await seal(b.size, b.root, b.previous as HeadRow | undefined);
      } catch (e) {
        await this.call({ op: 'abort' }).catch(() => undefined);
        throw e;
      }
      const f = (await this.call({ op: 'finish', head })) as Extract<FromWriter, { op: 'finished' }>;
      return { firstIndex: b.firstIndex, head: { id: f.id, ...head }, frontier: b.frontier };
    });
  }

  pragma(text: string): Promise<unknown> {
    return this.serial(async () => ((await this.call({ op: 'pragma', text })) as Extract<FromWriter, { op: 'pragma' }>).value);
  }

  async close(): Promise<void> {
    await this.serial(async () => undefined);
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }
}
