// A mirror for the tests, in this process, on a loopback port; and in-memory logs to feed it, each
// with its own Ed25519 key and origin, their checkpoints and add-checkpoint and add-entries bodies
// built by the core's codecs (whose byte layout the core's vectors pin).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sha256, utf8 } from '@svc/core/primitives';
import { MemoryTree, consistencyProof, treeRoot } from '@svc/core/merkle';
import {
  formatAddCheckpoint,
  formatAddEntries,
  formatCheckpoint,
  logKeygen,
  noteSigner,
  parseVkey,
  signNote,
  type NoteSigner,
  type NoteVerifier,
} from '@svc/core/tlog';
import { loadConfig } from '../../src/config.js';
import { startMirror, type RunningMirror } from '../../src/mirror-app.js';

export interface TestLog {
  origin: string;
  signer: NoteSigner;
  entries: Uint8Array[];
  tree: MemoryTree;
  /** The log's signed checkpoint at `size`. */
  note(size: number): string;
  /** An add-checkpoint body moving the mirror from `old` to `size`. */
  addCheckpoint(old: number, size: number): string;
  /** An add-entries body for [start, end), at most `packages` packages. */
  addEntries(start: number, end: number, packages?: number): Uint8Array;
}

export function testLog(name: string, n: number, entry = (i: number) => utf8(`${name} entry ${i}`)): TestLog {
  const origin = `example.test/${name}`;
  const signer = noteSigner(origin, logKeygen('ed25519', sha256(utf8(`log key ${name}`))));
  const entries = Array.from({ length: n }, (_, i) => entry(i));
  const tree = new MemoryTree();
  for (const e of entries) tree.appendData(e);
  const note = (size: number) => signNote(formatCheckpoint({ origin, size, root: treeRoot(tree, size), extensions: [] }), [signer]);
  return {
    origin,
    signer,
    entries,
    tree,
    note,
    addCheckpoint: (old, size) =>
      formatAddCheckpoint({ oldSize: old, proof: old > 0 && old < size ? consistencyProof(tree, old, size) : [], checkpoint: note(size) }),
    addEntries: (start, end, packages = Infinity) =>
      formatAddEntries({ origin, start, end, ticket: new Uint8Array(0) }, (i) => entries[i]!, tree, packages),
  };
}

export interface TestMirror {
  running: RunningMirror;
  dir: string;
  /** The environment it was started with (its database, for a restart on the same store). */
  env: Record<string, string>;
  url: string;
  vkeys: NoteVerifier[];
  logs: Array<[string, Record<string, unknown>]>;
  post(path: string, body: Uint8Array | string, headers?: Record<string, string>): Promise<{ status: number; type: string; text: string }>;
  entries(body: Uint8Array, gzip?: boolean): Promise<{ status: number; type: string; text: string }>;
  stop(): Promise<void>;
}

/** A mirror of `logs` (their vkeys, or test logs: a policy's log lines), in `dir` (a new folder by default). */
export async function testMirror(logs: (TestLog | string)[], o: { dir?: string; env?: Record<string, string> } = {}): Promise<TestMirror> {
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'svc-mirror-'));
  const cfg = loadConfig({ SVC_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', SVC_LOG: '0', ...o.env });
  const events: Array<[string, Record<string, unknown>]> = [];
  const policy = `${logs.map((l) => `log ${typeof l === 'string' ? l : l.signer.vkey}`).join('\n')}\nquorum none\n`;
  const running = await startMirror(cfg, policy, (e, f) => void events.push([e, f ?? {}]));
  const url = running.url;
  const post = async (path: string, body: Uint8Array | string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}/${path}`, { method: 'POST', body: body as string, headers });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };
  const vkeys = (await (await fetch(`${url}/vkeys`)).text()).trimEnd().split('\n').map(parseVkey);
  return {
    running,
    dir,
    env: o.env ?? {},
    url,
    vkeys,
    logs: events,
    post,
    entries: (body, gzip = false) =>
      post('add-entries', gzip ? gzipSync(body) : body, {
        'content-type': 'application/octet-stream',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      }),
    stop: () => running.close(),
  };
}
