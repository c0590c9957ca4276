// Being mirrored (c2sp.org/tlog-mirror, the client's side): bring a mirror up to a log's checkpoint.
// The log is read as any reader reads it, through its tiles, each authenticated against the
// checkpoint (so what is pushed is what the log signed, whoever serves the tiles); the mirror is
// told the checkpoint (add-checkpoint, from the size it says it holds) and then sent the entries
// from the next one it lacks, in requests of at most `packages` packages, resuming from each 202
// or 409 it answers. It ends with the mirror's cosignature on the checkpoint.
import { gzipSync } from 'node:zlib';
import { consistencyProof } from '@svc/core/merkle';
import {
  MIRROR_INFO_TYPE,
  PACKAGE_ENTRIES,
  TileReader,
  formatAddCheckpoint,
  formatAddEntries,
  openNote,
  parseCheckpoint,
  parseMirrorInfo,
  type FetchTile,
  type NoteVerifier,
} from '@svc/core/tlog';
import { textCapped } from '../net/peer.js';

export interface MirrorPush {
  /** Paths under the log's prefix: `checkpoint`, tiles and entry bundles (rejects when absent). */
  read: FetchTile;
  /** The log's key; its name is the origin. */
  logKey: NoteVerifier;
  /** The mirror's submission prefix. */
  mirror: string;
  /** Packages a request (tlog-mirror asks for at most 32). */
  packages?: number;
  /** The checkpoint to push (a signed note); else the one `read` serves now. */
  note?: string;
  fetch?: typeof fetch;
  /** Per request, headers and body. */
  timeoutMs?: number;
}

export interface PushResult {
  size: number;
  /** The mirror's cosignature lines on the checkpoint. */
  cosignatures: string;
  /** add-entries requests made. */
  requests: number;
}

/** A mirror's answer that ends the push: its status and what it said. */
export class MirrorRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`the mirror answered ${status}: ${body.trim().slice(0, 200)}`);
    this.name = 'MirrorRefused';
  }
}

const CAP = 64 * 1024;

/** Bring the mirror up to the log's current checkpoint (or `o.note`): add-checkpoint, then add-entries. */
export async function pushToMirror(o: MirrorPush): Promise<PushResult> {
  const note = o.note ?? new TextDecoder().decode(await o.read('checkpoint'));
  const c = parseCheckpoint(openNote(note, [o.logKey]).note.text);
  const tiles = new TileReader(o.read, { size: c.size, root: c.root });
  // The pending checkpoint: from size 0, then from the size a 409 says the mirror holds.
  let old = 0;
  for (let attempt = 0; ; attempt++) {
    const proof = old > 0 && old < c.size ? await tiles.read((t) => consistencyProof(t, old, c.size)) : [];
    const r = await post(o, 'add-checkpoint', formatAddCheckpoint({ oldSize: old, proof, checkpoint: note }));
    if (r.status === 200) break;
    if (r.status !== 409 || attempt > 0 || !/^(0|[1-9][0-9]{0,15})\n$/.test(r.text)) throw new MirrorRefused(r.status, r.text);
    old = Number(r.text.trim());
    if (old > c.size) throw new MirrorRefused(409, `the mirror holds a checkpoint of ${old} entries, more than the log's ${c.size}`);
  }
  return pushEntries(o, c, tiles);
}

type Post = Pick<MirrorPush, 'mirror' | 'fetch' | 'timeoutMs'>;

async function post(o: Post, path: string, body: Uint8Array | string, headers: Record<string, string> = {}) {
  const signal = AbortSignal.timeout(o.timeoutMs ?? 60_000);
  const url = `${o.mirror.replace(/\/+$/, '')}/${path}`;
  const res = await (o.fetch ?? fetch)(url, { method: 'POST', body: body as string /* or bytes: fetch takes either */, headers, signal });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await textCapped(res, CAP, url, signal) };
}

/**
 * The entries of checkpoint `c` the mirror lacks, sent once its pending checkpoint is `c` (an
 * add-checkpoint the mirror answered 200): from entry 0, then from each next entry a 202 or 409
 * names, until the 200 with its cosignature. `tiles` reads the log at `c` (made from `o.read`).
 */
export async function pushEntries(
  o: Pick<MirrorPush, 'read' | 'mirror' | 'packages' | 'fetch' | 'timeoutMs'>,
  c: { origin: string; size: number; root: Uint8Array },
  tiles = new TileReader(o.read, { size: c.size, root: c.root }),
): Promise<PushResult> {
  const per = Math.max(1, o.packages ?? 32);
  let start = 0;
  let requests = 0;
  // Each round ends the push or moves `start` to the mirror's next entry; a mirror that keeps
  // sending the client around is given up on after twice the requests the upload needs.
  const most = 2 * Math.ceil(c.size / PACKAGE_ENTRIES / per) + 8;
  for (;;) {
    if (requests >= most) throw new MirrorRefused(0, `no cosignature after ${requests} requests`);
    const end = Math.min(c.size, start - (start % PACKAGE_ENTRIES) + per * PACKAGE_ENTRIES);
    const entries = await tiles.entries(start, end);
    const body = await tiles.read((t) =>
      formatAddEntries({ origin: c.origin, start, end: c.size, ticket: new Uint8Array(0) }, (i) => entries[i - start]!, t, per),
    );
    requests++;
    const r = await post(o, 'add-entries', gzipSync(body), { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' });
    if (r.status === 200) return { size: c.size, cosignatures: r.text, requests };
    if ((r.status !== 202 && r.status !== 409) || !r.type.startsWith(MIRROR_INFO_TYPE)) throw new MirrorRefused(r.status, r.text);
    const info = parseMirrorInfo(r.text);
    if (info.size !== c.size)
      throw new MirrorRefused(r.status, `the mirror no longer takes uploads ending at ${c.size} (pending ${info.size})`);
    if (info.next > c.size) throw new MirrorRefused(r.status, `the mirror says it holds ${info.next} entries of a log of ${c.size}`);
    if (r.status === 202 && info.next <= start) throw new MirrorRefused(202, `the mirror kept nothing past ${start}`);
    if (r.status === 409 && info.next === start) throw new MirrorRefused(409, r.text);
    start = info.next;
  }
}
