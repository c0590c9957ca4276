// The server's SQLite store, kept in a storage process of its own (process-entry.ts): whatever
// happens to the files (shrunk under SQLite's mappings, replaced, unlinked), the worst is that this
// process dies. Its calls then fail, the ledger answers 503, and the next call after a pause starts
// another storage process on whatever the files now hold; verification never stops.
import { fork, type ChildProcess } from 'node:child_process';
import { builtFile } from '../../entries.js';
import { serially } from '../serial.js';
import {
  StoreDamage,
  type LedgerReads,
  type LedgerStore,
  type Presealed,
  type Seal,
  type Sequenced,
  type ConsistencyRead,
  type EntrySubject,
  type InclusionRead,
} from '../store.js';
import { StoreReads } from '../store-reads.js';
import { pack, READS, REPLACED, unpack, type FromStorage, type ReadName, type ToStorage } from './protocol.js';

type Request = ToStorage extends infer T ? (T extends { id: number } ? Omit<T, 'id'> : never) : never;

export interface ProcessStoreOptions {
  /** Told when a storage process ends without being asked to (signal or exit code). */
  onExit?: (why: string) => void;
  /** How long after a storage process died before another is started (ms). */
  restartMs?: number;
  now?: () => number;
}

/** `sqlite-process.js` sits beside the bundle that imports this module. */
const ENTRY = builtFile('sqlite-process.js', import.meta.url);

// WF-STORAGE
export class ProcessStore extends StoreReads implements LedgerStore {
  readonly kind = 'sqlite';
  protected readonly reads: LedgerReads;
  private child: Promise<ChildProcess> | null = null;
  private generation = 0;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private seal: Seal | null = null;
  private readonly oneSnapshot = serially();
  private readonly oneSequence = serially();
  private downUntil = -Infinity;
  private closed = false;
  /** Requests made of the storage process, and its requests back for a seal: for tests. */
  readonly crossings = { requests: 0, seals: 0 };

  private constructor(
    readonly location: string,
    private readonly o: ProcessStoreOptions,
  ) {
    super();
    this.reads = this.proxy(false);
  }

  /** Start the storage process; rejects when it cannot open the file. */
  static async open(file: string, o: ProcessStoreOptions = {}): Promise<ProcessStore> {
    const s = new ProcessStore(file, o);
    await s.connection();
    return s;
  }

  /** The process id of the current storage process (tests kill it), or null. */
  async pid(): Promise<number | null> {
    return this.child ? ((await this.child.catch(() => null))?.pid ?? null) : null;
  }

  private connection(): Promise<ChildProcess> {
    if (this.closed) return Promise.reject(new Error('ledger store is closed'));
    if (this.child) return this.child;
    if ((this.o.now ?? Date.now)() < this.downUntil) return Promise.reject(new Error('ledger storage process is restarting'));
    this.generation++;
    const c = fork(ENTRY, [this.location], { serialization: 'json', execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let opened = false;
    const started = new Promise<ChildProcess>((resolve, reject) => {
      const first = (m: FromStorage) => {
        if (!('op' in m) || (m.op !== 'ready' && m.op !== 'failed')) return;
        c.off('message', first);
        if (m.op === 'ready') {
          opened = true;
          resolve(c);
        } else reject(new Error(m.message));
      };
      c.on('message', first);
      c.once('exit', (code, signal) => reject(new Error(`ledger storage process exited (${signal ?? code}) while opening`)));
    });
    c.on('message', (m: unknown) => this.onMessage(c, unpack(m) as FromStorage));
    c.once('exit', (code, signal) => this.onExit(signal ?? String(code), opened, code === REPLACED));
    c.on('error', () => undefined);
    const current = started.catch((e: Error) => {
      if (this.child === current) this.child = null;
      c.kill('SIGKILL');
      throw e;
    });
    this.child = current;
    return current;
  }

  private onMessage(c: ChildProcess, m: FromStorage): void {
    if ('id' in m) {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.ok) p?.resolve(m.value);
      else p?.reject(m.damage ? new StoreDamage(m.message) : new Error(m.message));
    } else if (m.op === 'seal') {
      this.crossings.seals++;
      let reply: ToStorage;
      try {
        if (!this.seal) throw new Error('no batch is being sequenced');
        reply = { op: 'sealed', seal: m.seal, head: this.seal(m.size, m.root, m.previous) };
      } catch (e) {
        reply = { op: 'sealed', seal: m.seal, error: e instanceof Error ? e.message : String(e) };
      }
      if (c.connected) c.send(pack(reply) as object);
    }
  }

  private onExit(why: string, opened: boolean, replaced: boolean): void {
    const asked = this.closed || !opened;
    this.child = null;
    this.downUntil = replaced ? -Infinity : (this.o.now ?? Date.now)() + (this.o.restartMs ?? 1_000);
    const gone = new Error(`ledger storage process exited (${why})`);
    for (const p of this.pending.values()) p.reject(gone);
    this.pending.clear();
    if (!asked) this.o.onExit?.(why);
  }

  private async call(req: Request): Promise<unknown> {
    const c = await this.connection();
    const id = ++this.nextId;
    this.crossings.requests++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        c.send(pack({ ...req, id }) as object);
      } catch (e) {
        this.pending.delete(id);
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  private proxy(snap: boolean): LedgerReads {
    const reads = {} as Record<ReadName, (...args: unknown[]) => Promise<unknown>>;
    for (const name of READS) reads[name] = (...args) => this.call({ op: 'read', name, args, snap });
    return reads as unknown as LedgerReads;
  }

  async version(): Promise<string> {
    // A new storage process counts data_version afresh: the generation keeps versions apart.
    return `${this.generation}:${(await this.call({ op: 'version' })) as string}`;
  }

  snapshot<T>(read: (r: LedgerReads) => Promise<T>): Promise<T> {
    return this.oneSnapshot(async () => {
      await this.call({ op: 'snapshot-begin' });
      try {
        return await read(this.proxy(true));
      } finally {
        await this.call({ op: 'snapshot-end' }).catch(() => undefined);
      }
    });
  }

  /** One request; the storage process asks back for the seal only when `presealed` does not fit. */
  sequence(data: readonly Uint8Array[], seal: Seal, presealed?: Presealed): Promise<Sequenced> {
    return this.oneSequence(async () => {
      this.seal = seal;
      try {
        return (await this.call({ op: 'sequence', data: [...data], ...(presealed ? { presealed } : {}) })) as Sequenced;
      } finally {
        this.seal = null;
      }
    });
  }

  // JSON, which messages cross as, has no undefined in an array: an entry not found comes back null.
  override async findAllByData(data: readonly Uint8Array[]): Promise<(number | undefined)[]> {
    return ((await this.reads.findAllByData(data)) as (number | null | undefined)[]).map((i) => i ?? undefined);
  }

  // One round trip for a whole proof, where reading it piece by piece would cross two or three times.
  override proveInclusion(subject: EntrySubject, treeSize: number | undefined, withRoot: boolean): Promise<InclusionRead> {
    return this.call({
      op: 'prove-inclusion',
      subject,
      ...(treeSize !== undefined ? { treeSize } : {}),
      withRoot,
    }) as Promise<InclusionRead>;
  }

  override proveConsistency(first: number, second: number | undefined): Promise<ConsistencyRead> {
    return this.call({ op: 'prove-consistency', first, ...(second !== undefined ? { second } : {}) }) as Promise<ConsistencyRead>;
  }

  /** A pragma on the connection that writes: for tests. */
  writerPragma(text: string): Promise<unknown> {
    return this.call({ op: 'pragma', text });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const c = this.child ? await this.child.catch(() => null) : null;
    this.closed = true;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    const id = ++this.nextId;
    if (c.connected) c.send({ op: 'close', id } satisfies ToStorage);
    const timer = setTimeout(() => c.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
