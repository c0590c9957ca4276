// Threads that sign for an issuer: each loads the keyring of the data folder and signs the answers
// it is handed; the issuer's thread appends, proves and answers. Work waits here, not in the
// threads: in chunks of at most CHUNK answers, queued per owner (a token's name), and handed out
// round-robin across owners as threads free up, so one token's batches cannot starve another's
// answer (issue 53 row 7), and an owner's queue is bounded, so neither can its memory. A thread
// that dies fails only the answers it held (nothing signed there was returned, so nothing is lost
// from the log) and is replaced.
import { Worker } from 'node:worker_threads';
import type { EnvelopeFormat, ProofBundle } from '@svc/core/issue';
import { SvcError } from '@svc/core';
import { builtFile } from '../entries.js';
import type { IssueInput } from './issuer.js';
import type { Logger } from '../log.js';

export interface SignerSettings {
  dataDir: string;
  service: string;
  slhDiversity: boolean;
  bridge: boolean;
  envelopes?: readonly EnvelopeFormat[];
}

interface Thread {
  worker: Worker;
  waiting: Map<number, { count: number; resolve: (b: ProofBundle[]) => void; reject: (e: Error) => void }>;
  queued: number;
}

/** A chunk of one caller's answers, waiting for a thread. */
interface Chunk {
  inputs: readonly IssueInput[];
  call: { failed: boolean };
  resolve: (b: ProofBundle[]) => void;
  reject: (e: Error) => void;
}

/**
 * The most answers one chunk holds: a thread's turn, so another owner waits at most this long. Four:
 * with sixteen, another token's answer behind a flood waited two chunks of sixteen (about 0.8 s of
 * signing on Node 20) before its turn; a chunk costs one message to the thread, nothing beside four
 * signatures.
 */
export const CHUNK = 4;
/** Chunks a thread holds at once: two, so a thread never idles between one and the next. */
const PER_THREAD = 2;
/** The most answers one owner may have waiting; more is refused (SignerBusy) until some are signed. */
export const MAX_QUEUED_PER_OWNER = 4096;

/** Refused because the owner already has MAX_QUEUED_PER_OWNER answers waiting: retry shortly. */
export class SignerBusy extends Error {
  override readonly name = 'SignerBusy';
}

/**
 * A pool of signing threads.
 *
 * @example
 * ```ts
 * const signers = new SignerPool(2, { dataDir: './data', service: 'svc', slhDiversity: false, bridge: true }, log);
 * const bundles = await signers.sign([{ answer: 'Paris.' }]);
 * await signers.close();
 * ```
 */
export class SignerPool {
  private readonly threads: Thread[] = [];
  private nextId = 0;
  private closed = false;
  /** Waiting chunks by owner, in the order owners are served (an owner leaves when it has none). */
  private readonly queues = new Map<string, Chunk[]>();
  private readonly waitingAnswers = new Map<string, number>();

  constructor(
    size: number,
    private readonly settings: SignerSettings,
    private readonly log: Logger,
  ) {
    for (let i = 0; i < size; i++) this.threads.push(this.spawn());
  }

  private spawn(): Thread {
    const worker = new Worker(builtFile('signer-worker.js', import.meta.url), { workerData: this.settings });
    const t: Thread = { worker, waiting: new Map(), queued: 0 };
    worker.on('message', (m: { id: number; bundles?: ProofBundle[]; error?: string; name?: string }) => {
      const w = t.waiting.get(m.id);
      if (!w) return;
      t.waiting.delete(m.id);
      t.queued -= w.count;
      queueMicrotask(() => this.pump());
      if (m.bundles) w.resolve(m.bundles);
      // A refusal of the core (an answer it cannot sign) stays one; anything else is a fault.
      else w.reject(m.name === 'SvcError' ? new SvcError('invalid_request', m.error ?? 'refused') : new Error(m.error ?? 'signing failed'));
    });
    const died = (why: string) => {
      if (t.waiting.size) this.log('issue_signer_died', { why, answers: t.queued });
      for (const w of t.waiting.values()) w.reject(new Error(`a signing thread stopped (${why}): nothing was signed`));
      t.waiting.clear();
      t.queued = 0;
      const i = this.threads.indexOf(t);
      if (i >= 0 && !this.closed) this.threads[i] = this.spawn();
      queueMicrotask(() => this.pump());
    };
    worker.on('error', (e) => died(e.message));
    worker.on('exit', (code) => died(`exit ${code}`));
    return t;
  }

  /**
   * Sign answers on the threads; the bundles in order. `owner` (a token's name) is whose turn they
   * wait in: owners are served a chunk each in turn. Throws SignerBusy, signing nothing, when the
   * owner would have more than MAX_QUEUED_PER_OWNER answers waiting.
   */
  async sign(inputs: readonly IssueInput[], owner = ''): Promise<ProofBundle[]> {
    if (this.closed) throw new Error('the issuer is closed');
    const waiting = this.waitingAnswers.get(owner) ?? 0;
    if (waiting + inputs.length > MAX_QUEUED_PER_OWNER)
      throw new SignerBusy(`${waiting} answers of this caller are waiting to be signed (at most ${MAX_QUEUED_PER_OWNER}): retry shortly`);
    this.waitingAnswers.set(owner, waiting + inputs.length);
    const chunks: Promise<ProofBundle[]>[] = [];
    const queue = this.queues.get(owner) ?? [];
    this.queues.set(owner, queue);
    // One chunk failing fails the call: its chunks not yet handed out are dropped, not signed.
    const call = { failed: false };
    for (let at = 0; at < inputs.length; at += CHUNK) {
      const part = inputs.slice(at, at + CHUNK);
      chunks.push(
        new Promise<ProofBundle[]>((resolve, reject) =>
          queue.push({
            inputs: part,
            call,
            resolve,
            reject: (e) => {
              call.failed = true;
              reject(e);
            },
          }),
        ).finally(() => {
          const left = (this.waitingAnswers.get(owner) ?? 0) - part.length;
          if (left > 0) this.waitingAnswers.set(owner, left);
          else this.waitingAnswers.delete(owner);
        }),
      );
    }
    this.pump();
    return (await Promise.all(chunks)).flat();
  }

  /** Hand waiting chunks to threads with room, one owner's chunk at a time, round the owners. */
  private pump(): void {
    while (this.queues.size > 0) {
      const t = this.threads
        .filter((x) => x.waiting.size < PER_THREAD)
        .reduce<Thread | null>((a, b) => (!a || b.queued < a.queued ? b : a), null);
      if (!t) return;
      // The first owner in line gives one chunk and goes to the back (Map order is insertion order).
      const [owner, queue] = this.queues.entries().next().value!;
      const chunk = queue.shift()!;
      this.queues.delete(owner);
      if (queue.length > 0) this.queues.set(owner, queue);
      if (chunk.call.failed) {
        chunk.reject(new Error('another part of this batch failed: nothing was signed'));
        continue;
      }
      const id = this.nextId++;
      t.queued += chunk.inputs.length;
      t.waiting.set(id, { count: chunk.inputs.length, resolve: chunk.resolve, reject: chunk.reject });
      t.worker.postMessage({ id, inputs: chunk.inputs });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.queues.values()) for (const c of queue) c.reject(new Error('the issuer closed: nothing was signed'));
    this.queues.clear();
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
