// A fixed pool of worker threads for verification, so signature checks use every core and reads
// on the event loop stay fast while verifies queue. Each worker takes one task at a time.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runTask, type PoolSettings, type Task, type TaskResult } from './tasks.js';

interface Pending {
  id: number;
  task: Task;
  resolve: (r: TaskResult) => void;
  reject: (e: Error) => void;
}

export interface Executor {
  run(task: Task): Promise<TaskResult>;
  close(): Promise<void>;
}

/** Runs tasks on the calling thread: for tests and single-threaded tools. */
export function inlineExecutor(settings: PoolSettings): Executor {
  return { run: (t) => runTask(t, settings), close: async () => {} };
}

export class WorkerPool implements Executor {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(size: number, private readonly settings: PoolSettings, private readonly script: URL) {
    for (let i = 0; i < size; i++) this.spawn();
  }

  static create(size: number, settings: PoolSettings): Executor {
    const script = new URL('./worker.js', import.meta.url);
    // Running from sources (no built worker next to this module) falls back to inline execution.
    if (size < 1 || !existsSync(fileURLToPath(script))) return inlineExecutor(settings);
    return new WorkerPool(size, settings, script);
  }

  private spawn(): void {
    const w = new Worker(this.script, { workerData: this.settings });
    w.on('message', (m: { id: number; result?: TaskResult; crash?: string }) => {
      const p = this.busy.get(w);
      this.busy.delete(w);
      if (p) {
        if (m.result) p.resolve(m.result);
        else p.reject(new Error(m.crash ?? 'worker failed'));
      }
      this.release(w);
    });
    // A worker that dies (out of memory, a native fault) fails its task and is replaced, so the
    // pool keeps its size; an idle one is dropped from the idle list first.
    let failed: Error | null = null;
    w.on('error', (e) => {
      failed = e;
    });
    w.on('exit', () => {
      if (this.closed) return;
      const p = this.busy.get(w);
      this.busy.delete(w);
      const i = this.idle.indexOf(w);
      if (i >= 0) this.idle.splice(i, 1);
      p?.reject(failed ?? new Error('verification worker exited'));
      this.spawn();
    });
    this.release(w);
  }

  private release(w: Worker): void {
    const next = this.queue.shift();
    if (next) this.dispatch(w, next);
    else this.idle.push(w);
  }

  private dispatch(w: Worker, p: Pending): void {
    this.busy.set(w, p);
    w.postMessage({ id: p.id, task: p.task });
  }

  run(task: Task): Promise<TaskResult> {
    if (this.closed) return Promise.reject(new Error('pool closed'));
    return new Promise((resolve, reject) => {
      const p: Pending = { id: this.nextId++, task, resolve, reject };
      const w = this.idle.pop();
      if (w) this.dispatch(w, p);
      else this.queue.push(p);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('pool closed'));
    await Promise.all([...this.idle, ...this.busy.keys()].map((w) => w.terminate()));
  }
}
