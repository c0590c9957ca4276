// Storage-process entry: the one process of `svc serve` that touches the SQLite files. SQLite maps
// the WAL index (`ledger.sqlite-shm`) into memory whatever the settings, and a file another program
// shrinks under a mapping raises SIGBUS on the next access, which no JavaScript can catch. Here it
// ends this process alone: the server answers 503 on the ledger and starts another (process.ts).
import { statSync } from 'node:fs';
import { SqliteStore } from './store.js';
import { isDamage, type LedgerReads, type NewHead } from '../store.js';
import { pack, READS, REPLACED, unpack, type FromStorage, type ToStorage } from './protocol.js';

const send = (m: FromStorage) => process.send!(pack(m) as object);
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

// The parent going away (a crash, SIGKILL) closes the channel: an open transaction rolls back.
process.on('disconnect', () => process.exit(0));

const file = process.argv[2]!;
/** Which files the open connections read: SQLite keeps reading a file unlinked or renamed over. */
const identity = () =>
  [file, `${file}-wal`]
    .map((f) => {
      try {
        const st = statSync(f);
        return `${st.dev}:${st.ino}`;
      } catch {
        return 'none';
      }
    })
    .join(' ');
let opened = '';

let store: SqliteStore;
try {
  store = new SqliteStore(file);
  opened = identity();
  send({ op: 'ready' });
} catch (e) {
  send({ op: 'failed', message: message(e) });
  process.exit(0);
}

/** The snapshot the parent holds open: its reads, and how to end it. */
let snap: { reads: LedgerReads; end: () => void; done: Promise<unknown> } | null = null;
let sealId = 0;
const seals = new Map<number, { resolve: (h: NewHead) => void; reject: (e: Error) => void }>();

async function answer(m: Exclude<ToStorage, { op: 'sealed' }>): Promise<unknown> {
  switch (m.op) {
    case 'read': {
      if (!READS.includes(m.name)) throw new Error(`unknown read ${String(m.name)}`);
      const from: LedgerReads = m.snap ? (snap?.reads ?? fail('no snapshot is open')) : store;
      return (from[m.name] as (...a: unknown[]) => Promise<unknown>).apply(from, m.args);
    }
    case 'version': {
      // A ledger file or WAL deleted, replaced or restored over while open: this process would go
      // on reading the old ones, where a fresh start reads the new. Start afresh on them.
      if (identity() !== opened) {
        setImmediate(() => process.exit(REPLACED));
        throw new Error('ledger files were replaced');
      }
      return store.version();
    }
    case 'snapshot-begin': {
      if (snap) throw new Error('a snapshot is already open');
      return new Promise<void>((started, failed) => {
        let end!: () => void;
        const held = new Promise<void>((r) => {
          end = r;
        });
        const done = store.snapshot(async (reads) => {
          snap = { reads, end, done };
          started();
          await held;
        });
        done.catch(failed);
      });
    }
    case 'snapshot-end': {
      const s = snap;
      snap = null;
      if (!s) return undefined;
      s.end();
      await s.done;
      return undefined;
    }
    case 'sequence':
      if (!Array.isArray(m.data) || !m.data.every((d) => d instanceof Uint8Array && d.length === 32))
        throw new Error('sequence takes 32-byte leaves');
      return store.sequenceAsync(
        m.data,
        (size, root, previous) => {
          const seal = ++sealId;
          send({ op: 'seal', seal, size, root, previous });
          return new Promise<NewHead>((resolve, reject) => seals.set(seal, { resolve, reject }));
        },
        m.presealed,
      );
    case 'prove-inclusion': {
      const s = m.subject as { data?: unknown; leaf?: unknown } | null;
      const h = s?.data ?? s?.leaf;
      if (!(h instanceof Uint8Array) || h.length !== 32) throw new Error('prove-inclusion takes a 32-byte entry or leaf hash');
      if (m.treeSize !== undefined && typeof m.treeSize !== 'number') throw new Error('prove-inclusion takes a numeric tree size');
      return store.proveInclusion(s?.data !== undefined ? { data: h } : { leaf: h }, m.treeSize, m.withRoot === true);
    }
    case 'prove-consistency':
      if (typeof m.first !== 'number' || (m.second !== undefined && typeof m.second !== 'number'))
        throw new Error('prove-consistency takes numeric sizes');
      return store.proveConsistency(m.first, m.second);
    case 'pragma':
      return store.writerPragma(m.text);
    case 'close':
      await store.close();
      setImmediate(() => process.exit(0));
      return undefined;
    default:
      throw new Error(`unknown request ${JSON.stringify((m as { op?: unknown }).op)}`);
  }
}

function fail(why: string): never {
  throw new Error(why);
}

process.on('message', (raw: unknown) => {
  const m = unpack(raw) as ToStorage;
  // Only the server talks to this process, but a message it cannot read is an error reply, never a throw.
  if (m === null || typeof m !== 'object') return;
  if (m.op === 'sealed') {
    const s = seals.get(m.seal);
    seals.delete(m.seal);
    if (m.head) s?.resolve(m.head);
    else s?.reject(new Error(m.error ?? 'the head was not signed'));
    return;
  }
  Promise.resolve()
    .then(() => answer(m))
    .then(
      (value) => send({ id: m.id, ok: true, value }),
      (e: unknown) => send({ id: m.id, ok: false, message: message(e), damage: isDamage(e) }),
    );
});
