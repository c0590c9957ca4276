// svc mirror push's client against a mirror that misbehaves: answers it cannot read, too large,
// mirror-info that lies or never moves, a refusal. Each ends the push with MirrorRefused (or the
// peer cap's error), never a loop or a push the client takes for done.
import { describe, expect, it } from 'vitest';
import { encodeEntryBundle, encodeTile, parseVkey, tileNodes, tilePath, tileWidth } from '@svc/core/tlog';
import { MirrorRefused, pushToMirror } from '../../src/tlog/mirroring.js';
import { testLog } from '../support/mirror.js';

const log = testLog('push', 600);
const tiles = new Map<string, Uint8Array>();
for (let n = 0; n * 256 < 600; n++) {
  const w = tileWidth(0, n, 600);
  tiles.set(tilePath({ level: 0, index: n, width: w }), encodeTile(tileNodes(0, n, w).map((x) => log.tree.subtree(x.level, x.index))));
  tiles.set(tilePath({ level: 'entries', index: n, width: w }), encodeEntryBundle(log.entries.slice(n * 256, n * 256 + w)));
}
tiles.set(tilePath({ level: 1, index: 0, width: 2 }), encodeTile([log.tree.subtree(8, 0), log.tree.subtree(8, 1)]));
const read = async (path: string) => {
  if (path === 'checkpoint') return new TextEncoder().encode(log.note(600));
  const t = tiles.get(path);
  if (!t) throw new Error(`absent: ${path}`);
  return t;
};

/** A mirror that takes the checkpoint, then answers every add-entries with `answer(i)`. */
function mirror(answer: (i: number) => Response) {
  let i = 0;
  const calls: string[] = [];
  const fetch = (async (url: string | URL) => {
    calls.push(String(url));
    return String(url).endsWith('/add-checkpoint') ? new Response('') : answer(i++);
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}
const info = (status: number, text: string) => new Response(text, { status, headers: { 'content-type': 'text/x.tlog.mirror-info' } });
const push = (f: typeof fetch) =>
  pushToMirror({ read, logKey: parseVkey(log.signer.vkey), mirror: 'http://mirror.test', fetch: f, packages: 1 });

describe('pushing to a mirror that misbehaves', () => {
  it('a mirror that keeps answering 202 without moving its next entry is given up on', async () => {
    const m = mirror(() => info(202, '600\n0\n\n'));
    await expect(push(m.fetch)).rejects.toThrow(MirrorRefused);
    expect(m.calls.filter((c) => c.endsWith('/add-entries'))).toHaveLength(1);
  });

  it('a mirror sending the client around in a circle stops after a bounded number of requests', async () => {
    const m = mirror((i) => info(409, `600\n${i % 2 === 0 ? 256 : 0}\n\n`));
    await expect(push(m.fetch)).rejects.toThrow(/no cosignature after \d+ requests/);
    expect(m.calls.length).toBeLessThan(20);
  });

  it('mirror-info that is malformed, names another size or more entries than the log has, is refused', async () => {
    await expect(push(mirror(() => info(202, 'garbage')).fetch)).rejects.toThrow();
    await expect(push(mirror(() => info(202, '700\n256\n\n')).fetch)).rejects.toThrow(/no longer takes uploads ending at 600/);
    await expect(push(mirror(() => info(409, '600\n9000\n\n')).fetch)).rejects.toThrow(/holds 9000 entries of a log of 600/);
    await expect(push(mirror(() => new Response('600\n256\n\n', { status: 202 })).fetch)).rejects.toThrow(MirrorRefused);
  });

  it('a refusal ends the push with its status; an answer past 64 KiB is not read whole', async () => {
    await expect(push(mirror(() => new Response('no\n', { status: 422 })).fetch)).rejects.toMatchObject({ status: 422 });
    await expect(push(mirror(() => new Response('—'.repeat(100_000))).fetch)).rejects.toThrow(/more than 65536 bytes/);
  });

  it('an honest sequence of answers ends with the cosignature lines', async () => {
    const m = mirror((i) => (i < 2 ? info(202, `600\n${256 * (i + 1)}\n\n`) : new Response('— mirror.test AAAA\n')));
    expect(await push(m.fetch)).toEqual({ size: 600, cosignatures: '— mirror.test AAAA\n', requests: 3 });
  });
});
