// Threads that sign for an issuer: each loads the keyring of the data folder and signs the answers
// it is handed; the issuer's thread appends, proves and answers. Answers are split across the
// threads by how much each has waiting. A thread that dies fails only the answers it held (nothing
// signed there was returned, so nothing is lost from the log) and is replaced.
import { Worker } from 'node:worker_threads';
import type { EnvelopeFormat, ProofBundle } from '@svc/core';
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
    };
    worker.on('error', (e) => died(e.message));
    worker.on('exit', (code) => died(`exit ${code}`));
    return t;
  }

  /** Sign answers on the threads, split by what each has waiting; the bundles in order. */
  async sign(inputs: readonly IssueInput[]): Promise<ProofBundle[]> {
    if (this.closed) throw new Error('the issuer is closed');
    const parts = Math.min(this.threads.length, inputs.length);
    const size = Math.ceil(inputs.length / Math.max(1, parts));
    const chunks: Promise<ProofBundle[]>[] = [];
    for (let at = 0; at < inputs.length; at += size) {
      const chunk = inputs.slice(at, at + size);
      const t = this.threads.reduce((a, b) => (b.queued < a.queued ? b : a));
      const id = this.nextId++;
      t.queued += chunk.length;
      chunks.push(
        new Promise<ProofBundle[]>((resolve, reject) => {
          t.waiting.set(id, { count: chunk.length, resolve, reject });
          t.worker.postMessage({ id, inputs: chunk });
        }),
      );
    }
    return (await Promise.all(chunks)).flat();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
