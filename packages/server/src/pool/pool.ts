// A fixed pool of worker threads for verification, so signature checks use every core and reads
// on the event loop stay fast while verifies queue. Each worker takes one task at a time.
//
// The threads start with the first task that needs one, all of them, and from then on the pool
// keeps its size. A thread loads the core and its noble primitives (about 0.5 s of CPU and 15-20 MB
// each on the CI machine); a process that never verifies anything off its event loop (static
// pages, heads, proofs served from the ledger) never pays that, and the first task waits for the
// loading once.
//
// Every task settles exactly once: with the worker's answer, with a refusal when the queue is full
// (by count, bytes or estimated signatures), when its deadline passes (the worker running it is
// replaced), when its worker dies, or when its reply cannot be read. Nothing waits forever.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CryptoBackend } from '@svc/core';
import { nativeCrypto } from '../crypto/node.js';
import { builtFile } from '../entries.js';
import { runTask, taskCost, type PoolSettings, type Task, type TaskResult } from './tasks.js';

/**
 * Where verification and signing run: worker threads in the server, or inline in tests and embeddings.
 *
 * @example
 * ```ts
 * const executor: Executor = inlineExecutor(settings);
 * ```
 */
export interface Executor {
  /** Resolves with the task's result or a typed refusal; never rejects. */
  run(task: Task): Promise<TaskResult>;
  close(): Promise<void>;
}

export interface PoolLimits {
  /** Tasks waiting for a worker, at most. */
  maxQueued: number;
  /** Body bytes held by waiting tasks, at most. */
  maxQueuedBytes: number;
  /** Estimated signatures waiting, at most (see estimateCost). */
  maxQueuedCost: number;
  /** From admission to answer; past it the task is refused and its worker replaced. */
  taskTimeoutMs: number;
  /**
   * Tasks estimated at most this many signatures run on the calling thread: for a plain proof the
   * hop to a worker and back costs more CPU than the check (measured in tools/bench/scaling.mjs), and a
   * bounded estimate bounds how long the event loop is held. 0: every task goes to a worker.
   */
  inlineMaxCost: number;
}

/** About two seconds of queued work per worker on this project's benchmark machine. */
export function defaultLimits(workers: number): PoolLimits {
  const n = Math.max(1, workers);
  return {
    maxQueued: 64 * n,
    maxQueuedBytes: 64 * 1024 * 1024,
    maxQueuedCost: 400 * n,
    taskTimeoutMs: 30_000,
    inlineMaxCost: INLINE_NATIVE,
  };
}

// A plain proof's estimate is 2 (one receipt), with a model-plane attestation 4: about 1.2 ms of
// the event loop with node:crypto. With noble (8x slower) nothing runs inline.
const INLINE_NATIVE = 4;

// Seconds of work one estimated signature stands for, to tell a refused client when to come back.
const SECONDS_PER_COST = 0.006;

// A worker that throws or dies, or a reply that cannot cross back, is the server's fault: never a
// refusal of the client's document (the core's refusals arrive as results, with their own codes).
const crashedBy = (e: unknown): TaskResult => ({
  ok: false,
  code: 'internal',
  message: `a verification task failed: ${e instanceof Error ? e.message : String(e)}`,
});
const unreadable: TaskResult = { ok: false, code: 'internal', message: "a verification worker's reply could not be read" };
const unavailable = (message: string, retryAfter: number): TaskResult => ({ ok: false, code: 'unavailable', message, retryAfter });

/**
 * Runs tasks on the calling thread: for tests and single-threaded tools.
 *
 * @example
 * ```ts
 * const app = createApp({ ...deps, executor: inlineExecutor(settings) }); // no worker threads
 * ```
 */
export function inlineExecutor(settings: PoolSettings, crypto?: CryptoBackend): Executor {
  return {
    run: (t) => runTask(t, settings, crypto).catch(crashedBy),
    close: async () => {},
  };
}

interface Pending {
  id: number;
  task: Task;
  cost: number;
  bytes: number;
  done: boolean;
  queued: boolean;
  worker: Worker | null;
  timer: ReturnType<typeof setTimeout> | null;
  resolve: (r: TaskResult) => void;
}

export interface PoolStats {
  workers: number;
  /** Workers that have loaded and said so (a replacement takes a moment to load). */
  ready: number;
  /** The pool's size: the workers it keeps once started. */
  size: number;
  /** Whether a task has needed a worker yet (the threads start then). */
  started: boolean;
  busy: number;
  queued: number;
  queuedBytes: number;
  queuedCost: number;
  /** Tasks run on the calling thread since start (see PoolLimits.inlineMaxCost). */
  inlined: number;
}

export class WorkerPool implements Executor {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly loaded = new Set<Worker>();
  private readonly queue: Pending[] = [];
  private queuedBytes = 0;
  private queuedCost = 0;
  private nextId = 1;
  private closed = false;
  private started = false;
  private inlined = 0;
  private readonly inlineCrypto = nativeCrypto() ?? undefined;
  private readonly limits: PoolLimits;

  constructor(
    private readonly size: number,
    private readonly settings: PoolSettings,
    private readonly script: URL,
    limits: Partial<PoolLimits> = {},
    private readonly onEvent: (event: string, fields: Record<string, unknown>) => void = () => {},
  ) {
    this.limits = { ...defaultLimits(size), ...(this.inlineCrypto ? {} : { inlineMaxCost: 0 }), ...limits };
  }

  static create(
    size: number,
    settings: PoolSettings,
    limits: Partial<PoolLimits> = {},
    onEvent?: (event: string, fields: Record<string, unknown>) => void,
  ): Executor {
    const script = builtFile('worker.js', import.meta.url);
    // Running from sources (no built worker next to this module) falls back to inline execution.
    if (size < 1 || !existsSync(fileURLToPath(script))) return inlineExecutor(settings, nativeCrypto() ?? undefined);
    return new WorkerPool(size, settings, script, limits, onEvent);
  }

  stats(): PoolStats {
    return {
      workers: this.idle.length + this.busy.size,
      ready: this.loaded.size,
      size: this.size,
      started: this.started,
      busy: this.busy.size,
      queued: this.queue.length,
      queuedBytes: this.queuedBytes,
      queuedCost: this.queuedCost,
      inlined: this.inlined,
    };
  }

  private spawn(): void {
    const w = new Worker(this.script, { workerData: this.settings });
    w.on('message', (m: { id: number; result?: TaskResult; crash?: string; ready?: true }) => {
      if (m?.ready === true) {
        this.loaded.add(w);
        return;
      }
      const p = this.busy.get(w);
      if (!p || p.id !== m?.id) return;
      this.busy.delete(w);
      if (m.crash !== undefined) this.onEvent('task_crash', { error: m.crash });
      this.settle(p, m.result ?? crashedBy(m.crash ?? 'no result'));
      this.release(w);
    });
    // A reply the structured-clone reader cannot rebuild fails only the task that produced it.
    w.on('messageerror', () => {
      const p = this.busy.get(w);
      this.busy.delete(w);
      if (p) this.settle(p, unreadable);
      this.release(w);
    });
    let failure: string | null = null;
    w.on('error', (e) => {
      failure = e instanceof Error ? e.message : String(e);
    });
    // A worker that dies (out of memory, a native fault, or terminated past a deadline) fails
    // its task and is replaced, so the pool keeps its size.
    w.on('exit', () => {
      this.loaded.delete(w);
      const i = this.idle.indexOf(w);
      if (i >= 0) this.idle.splice(i, 1);
      const p = this.busy.get(w);
      this.busy.delete(w);
      if (p) {
        this.onEvent('worker_exit', { error: failure ?? 'exited' });
        this.settle(p, crashedBy(failure ?? 'the worker exited'));
      }
      if (!this.closed) this.spawn();
    });
    this.release(w);
  }

  private release(w: Worker): void {
    if (this.closed) return;
    const next = this.queue.shift();
    if (next) {
      this.unqueue(next);
      this.dispatch(w, next);
    } else this.idle.push(w);
  }

  private dispatch(w: Worker, p: Pending): void {
    p.worker = w;
    this.busy.set(w, p);
    // A body that owns its whole buffer moves to the worker instead of being copied.
    const b = p.task.body;
    const whole = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer;
    w.postMessage({ id: p.id, task: p.task }, whole ? [b.buffer as ArrayBuffer] : []);
  }

  private unqueue(p: Pending): void {
    if (!p.queued) return;
    p.queued = false;
    this.queuedBytes -= p.bytes;
    this.queuedCost -= p.cost;
  }

  private settle(p: Pending, r: TaskResult): void {
    if (p.done) return;
    p.done = true;
    if (p.timer) clearTimeout(p.timer);
    if (p.queued) {
      const i = this.queue.indexOf(p);
      if (i >= 0) this.queue.splice(i, 1);
      this.unqueue(p);
    }
    p.resolve(r);
  }

  private retryAfter(extraCost = 0): number {
    return Math.min(60, Math.max(1, Math.ceil(((this.queuedCost + extraCost) * SECONDS_PER_COST) / Math.max(1, this.size))));
  }

  private expire(p: Pending): void {
    if (p.done) return;
    const w = p.worker;
    this.settle(p, unavailable('verification took too long; retry later', this.retryAfter()));
    if (w && this.busy.get(w) === p) {
      // The worker is still computing a result nobody waits for: stop it; exit spawns a new one.
      this.busy.delete(w);
      this.onEvent('task_timeout', { ms: this.limits.taskTimeoutMs });
      void w.terminate();
    }
  }

  run(task: Task): Promise<TaskResult> {
    if (this.closed) return Promise.resolve(unavailable('shutting down', 1));
    const cost = taskCost(task);
    // A statement batch always goes to a worker: it is many checks for one hop, batched so that
    // registrations never hold the event loop.
    if (cost <= this.limits.inlineMaxCost && task.op !== 'statements') {
      this.inlined++;
      return runTask(task, this.settings, this.inlineCrypto).catch(crashedBy);
    }
    if (!this.started) {
      this.started = true;
      for (let i = 0; i < this.size; i++) this.spawn();
    }
    const bytes = task.body.length;
    const w = this.idle.pop();
    if (!w) {
      const l = this.limits;
      // An empty queue always takes one task, so even the costliest allowed document gets its turn.
      const full =
        this.queue.length > 0 &&
        (this.queue.length >= l.maxQueued || this.queuedBytes + bytes > l.maxQueuedBytes || this.queuedCost + cost > l.maxQueuedCost);
      if (full) return Promise.resolve(unavailable('verification capacity exhausted; retry later', this.retryAfter(cost)));
    }
    return new Promise((resolve) => {
      const p: Pending = { id: this.nextId++, task, cost, bytes, done: false, queued: false, worker: null, timer: null, resolve };
      p.timer = setTimeout(() => this.expire(p), this.limits.taskTimeoutMs);
      if (w) this.dispatch(w, p);
      else {
        p.queued = true;
        this.queue.push(p);
        this.queuedBytes += bytes;
        this.queuedCost += cost;
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopped = unavailable('shutting down', 1);
    for (const p of [...this.queue]) this.settle(p, stopped);
    const workers = [...this.idle, ...this.busy.keys()];
    for (const p of this.busy.values()) this.settle(p, stopped);
    this.busy.clear();
    this.idle.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
