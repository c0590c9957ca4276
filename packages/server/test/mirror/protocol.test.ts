// svc mirror serve against c2sp.org/tlog-mirror, over HTTP: the pending checkpoint (moved, never
// signed), uploads whole, cut and resumed, the statuses in the spec's order, and the mirror's state
// after each: a package that lies is refused and nothing is signed; a mirror restarted mid-upload
// resumes where it stopped; what it serves reads back through the authenticating tile reader.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex, utf8 } from '@svc/core/primitives';
import { MIRROR_INFO_TYPE, TileReader, openNote, parseCheckpoint, parseMirrorInfo, parseVkey } from '@svc/core/tlog';
import { BACKENDS, testDb, type BackendName } from '../support/backends.js';
import { rawRequest } from '../support/rawhttp.js';
import { testLog, testMirror, type TestLog, type TestMirror } from '../support/mirror.js';

const logs = {
  whole: testLog('whole', 1000),
  cut: testLog('cut', 700),
  lies: testLog('lies', 600),
  statuses: testLog('statuses', 600),
  stale: testLog('stale', 900),
  prop: testLog('prop', 800),
  restart: testLog('restart', 1300),
  empty: testLog('empty', 0),
};
describe.each(BACKENDS)('%s', (backend: BackendName) => {
  // Each mirror of this run on its own store: a new data folder, or a new PostgreSQL database.
  const store = async (): Promise<Record<string, string>> =>
    backend === 'postgres' ? { SVC_DATABASE_URL: (await testDb('postgres')).location } : {};
  let m: TestMirror;

  beforeAll(async () => {
    m = await testMirror(Object.values(logs), { env: await store() });
  }, 60_000);
  afterAll(async () => m?.stop());

  const checkpointOf = async (mirror: TestMirror, log: TestLog) => fetch(`${mirror.url}/${sha256Hex(log.origin)}/checkpoint`);
  const info = (r: { type: string; text: string }) => {
    expect(r.type).toBe(MIRROR_INFO_TYPE);
    return parseMirrorInfo(r.text);
  };

  /** Every entry, read back from the mirror through the core's tile reader against the log's own root. */
  async function readBack(mirror: TestMirror, log: TestLog, size: number): Promise<void> {
    const prefix = `${mirror.url}/${sha256Hex(log.origin)}/`;
    const note = await (await fetch(`${prefix}checkpoint`)).text();
    const c = parseCheckpoint(openNote(note, [parseVkey(log.signer.vkey)]).note.text);
    expect(c.size).toBe(size);
    // The mirror's own two lines verify under the keys it publishes.
    expect(openNote(note, mirror.vkeys).verified).toHaveLength(2);
    const reader = new TileReader(async (p) => {
      const r = await fetch(prefix + p);
      if (r.status !== 200) throw new Error(`${p}: ${r.status}`);
      return new Uint8Array(await r.arrayBuffer());
    }, c);
    await reader.checkRoot();
    expect((await reader.entries(0, size)).map((e) => new TextDecoder().decode(e))).toEqual(
      log.entries.slice(0, size).map((e) => new TextDecoder().decode(e)),
    );
  }

  describe('the pending checkpoint', () => {
    it('add-checkpoint moves it with an empty answer, signs nothing, and speaks the witness 409', async () => {
      const l = logs.whole;
      const first = await m.post('add-checkpoint', l.addCheckpoint(0, 300));
      expect(first).toMatchObject({ status: 200, text: '' });
      expect((await checkpointOf(m, l)).status).toBe(404);
      expect(await m.post('add-checkpoint', l.addCheckpoint(0, 1000))).toEqual({ status: 409, type: 'text/x.tlog.size', text: '300\n' });
      expect(await m.post('add-checkpoint', l.addCheckpoint(300, 1000))).toMatchObject({ status: 200, text: '' });
      const other = testLog('whole', 1000, (i) => utf8(`another history ${i}`));
      expect((await m.post('add-checkpoint', other.addCheckpoint(1000, 1000))).status).toBe(422);
    });

    it('a whole upload, gzipped, is answered with the cosignature, and the log reads back from the mirror', async () => {
      const l = logs.whole;
      const r = await m.entries(l.addEntries(0, 1000), true);
      expect(r.status, r.text).toBe(200);
      const lines = r.text.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines.every((s) => s.startsWith(`— ${m.vkeys[0]!.name} `))).toBe(true);
      await readBack(m, l, 1000);
      // A tile past the mirror checkpoint is not served.
      expect((await fetch(`${m.url}/${sha256Hex(l.origin)}/tile/0/004`)).status).toBe(404);
    });

    it('an empty log is mirrored from its size-0 checkpoint', async () => {
      const l = logs.empty;
      expect((await m.post('add-checkpoint', l.addCheckpoint(0, 0))).status).toBe(200);
      expect((await m.entries(l.addEntries(0, 0))).status).toBe(200);
      expect(parseCheckpoint(openNote(await (await checkpointOf(m, l)).text(), m.vkeys).note.text).size).toBe(0);
    });
  });

  describe('uploads cut short and resumed', () => {
    it('a body cut inside its second package keeps the first (202 with the next entry); the rest completes it', async () => {
      const l = logs.cut;
      expect((await m.post('add-checkpoint', l.addCheckpoint(0, 700))).status).toBe(200);
      const body = l.addEntries(0, 700);
      const cut = await m.entries(body.subarray(0, Math.floor(body.length / 2)));
      expect(cut.status).toBe(202);
      expect(info(cut)).toEqual({ size: 700, next: 256, ticket: new Uint8Array(0) });
      // A client that starts over from 0 resends more than one package the mirror holds: told where to start.
      const done = await m.entries(l.addEntries(256, 700));
      expect(done.status, done.text).toBe(200);
      await readBack(m, l, 700);
    });

    it('a client limited to one package a request gets 202 after each and a cosignature after the last', async () => {
      const l = logs.restart;
      expect((await m.post('add-checkpoint', l.addCheckpoint(0, 600))).status).toBe(200);
      let start = 0;
      const answers: number[] = [];
      for (;;) {
        const r = await m.entries(l.addEntries(start, 600, 1));
        answers.push(r.status);
        if (r.status !== 202) break;
        start = info(r).next;
      }
      expect(answers).toEqual([202, 202, 200]);
    });

    it('restarted mid-upload, the mirror resumes from what it had committed', async () => {
      const l = logs.restart;
      expect((await m.post('add-checkpoint', l.addCheckpoint(600, 1300))).status).toBe(200);
      const body = l.addEntries(600, 1300);
      expect(info(await m.entries(body.subarray(0, body.length - 100))).next).toBe(1280);
      await m.stop();
      m = await testMirror(Object.values(logs), { dir: m.dir, env: m.env });
      // The mirror checkpoint survived; the pending one too, and the entries kept before the restart.
      expect(parseCheckpoint(openNote(await (await checkpointOf(m, l)).text(), m.vkeys).note.text).size).toBe(600);
      const conflict = await m.entries(l.addEntries(1300, 1300));
      expect(conflict.status).toBe(409);
      expect(info(conflict)).toMatchObject({ size: 1300, next: 1280 });
      expect((await m.entries(l.addEntries(1280, 1300))).status).toBe(200);
      await readBack(m, l, 1300);
    }, 60_000);

    it('property: any sequence of cut uploads, each resumed from the answer, ends cosigned with every entry', async () => {
      const l = logs.prop;
      expect((await m.post('add-checkpoint', l.addCheckpoint(0, 800))).status).toBe(200);
      let size = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }), async (cuts) => {
          let start = (await m.entries(l.addEntries(800, 800))).status === 200 ? 800 : info(await m.entries(l.addEntries(800, 800))).next;
          for (const f of [...cuts, 1]) {
            if (start >= 800) break;
            const body = l.addEntries(start, 800);
            const r = await m.entries(body.subarray(0, Math.max(1, Math.floor(body.length * f))), f > 0.5);
            if (r.status === 200) {
              start = 800;
              break;
            }
            // 400: nothing whole arrived; the next entry is unchanged.
            if (r.status !== 400) start = info(r).next;
          }
          if (start < 800) expect((await m.entries(l.addEntries(start, 800))).status).toBe(200);
          size = 800;
        }),
        { numRuns: 4 },
      );
      await readBack(m, l, size);
    }, 60_000);
  });

  describe('refusals, in the order tlog-mirror gives them', () => {
    const l = logs.statuses;
    beforeAll(async () => {
      expect((await m.entries(l.addEntries(0, 600))).status).toBe(422); // no pending checkpoint yet
      expect((await m.post('add-checkpoint', l.addCheckpoint(0, 600))).status).toBe(200);
    });

    it('the read routes refuse what is not a mirrored log or a tile of it, and a walked-around path', async () => {
      const known = sha256Hex(logs.whole.origin);
      const get = async (path: string) => (await fetch(`${m.url}${path}`)).status;
      expect(await get('/not-a-hash/checkpoint')).toBe(404);
      expect(await get(`/${'A'.repeat(64)}/checkpoint`)).toBe(404);
      expect(await get(`/${sha256Hex('nobody.test/log')}/checkpoint`)).toBe(404);
      expect(await get(`/${sha256Hex('nobody.test/log')}/tile/0/000`)).toBe(404);
      expect(await get(`/${known}/tile/garbage`)).toBe(404);
      expect(await get(`/${known}/tile/0/000.p/0`)).toBe(404);
      expect(await get(`/${known}/tile/99/000`)).toBe(404);
      expect(await get(`/${known}/tile/${'x999/'.repeat(2000)}000`)).toBe(404);
      const port = Number(new URL(m.url).port);
      const walked = await rawRequest(port, `GET /${known}/tile/%2e%2e/checkpoint HTTP/1.1\r\nhost: x\r\n\r\n`);
      expect(walked.status).toBe(400);
      expect(await get(`/${known}/checkpoint`)).toBe(200);
    });

    it('404 for a log it does not mirror, 409 with mirror-info for sizes that do not fit', async () => {
      expect((await m.entries(testLog('stranger', 10).addEntries(0, 10))).status).toBe(404);
      const unknownEnd = await m.entries(l.addEntries(0, 500));
      expect(unknownEnd.status).toBe(409);
      expect(info(unknownEnd)).toEqual({ size: 600, next: 0, ticket: new Uint8Array(0) });
      const pastNext = await m.entries(l.addEntries(300, 600));
      expect(pastNext.status).toBe(409);
      expect(info(pastNext)).toMatchObject({ size: 600, next: 0 });
    });

    it('a header naming 2^53 - 1 entries, or a start above its end, is refused without reading on', async () => {
      const head = (start: bigint, end: bigint) => {
        const o = utf8(l.origin);
        const b = new Uint8Array(2 + o.length + 18);
        const v = new DataView(b.buffer);
        v.setUint16(0, o.length);
        b.set(o, 2);
        v.setBigUint64(2 + o.length, start);
        v.setBigUint64(10 + o.length, end);
        return b;
      };
      expect((await m.entries(head(0n, 2n ** 53n - 1n))).status).toBe(409);
      expect((await m.entries(head(5n, 4n))).status).toBe(400);
      expect((await m.entries(head(0n, 2n ** 64n - 1n))).status).toBe(400);
    });

    it('a package whose entries are not those of the checkpoint is refused (422) and nothing is kept or signed', async () => {
      const liar = logs.lies;
      expect((await m.post('add-checkpoint', liar.addCheckpoint(0, 600))).status).toBe(200);
      const body = liar.addEntries(0, 600);
      // One byte of the third entry changed: the first package's proof no longer leads to the root.
      const e = liar.entries;
      const at = 2 + utf8(liar.origin).length + 18 + (2 + e[0]!.length) + (2 + e[1]!.length) + 2;
      const bad = body.slice();
      bad[at] = bad[at]! ^ 1;
      const r = await m.entries(bad);
      expect(r.status).toBe(422);
      expect(r.text).toMatch(/\[0, 256\)/);
      expect(info(await m.entries(liar.addEntries(600, 600)))).toMatchObject({ next: 0 });
      expect((await checkpointOf(m, liar)).status).toBe(404);
      expect(m.logs.some(([e]) => e === 'mirror_refused_package')).toBe(true);
    });

    it('a package from another history, proved against its own root, is refused too', async () => {
      const other = testLog('lies', 600, (i) => utf8(`forged ${i}`));
      expect((await m.entries(other.addEntries(0, 600))).status).toBe(422);
      expect((await checkpointOf(m, logs.lies)).status).toBe(404);
    });

    it('400 for a truncated header, bytes after the last package, gzip that does not inflate; 415 for other bodies', async () => {
      expect((await m.entries(l.addEntries(0, 600).subarray(0, 5))).status).toBe(400);
      expect((await m.entries(new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3, 4]), false)).status).toBe(400);
      const notGzip = await m.post('add-entries', l.addEntries(0, 600), {
        'content-type': 'application/octet-stream',
        'content-encoding': 'gzip',
      });
      expect(notGzip.status).toBe(400);
      expect((await m.post('add-entries', l.addEntries(0, 600), { 'content-type': 'text/plain' })).status).toBe(415);
      expect(
        (await m.post('add-entries', l.addEntries(0, 600), { 'content-type': 'application/octet-stream', 'content-encoding': 'br' }))
          .status,
      ).toBe(415);
      const trailing = await m.entries(Uint8Array.from([...l.addEntries(0, 600), 0]));
      expect(trailing.status).toBe(400);
      // Its packages were proved and kept; the checkpoint waits for a clean upload.
      expect((await checkpointOf(m, l)).status).toBe(404);
      expect((await m.entries(l.addEntries(600, 600))).status).toBe(200);
    });

    it('a gzip bomb (64 MiB of zeros in 64 KiB) is answered from its header, inflated no further', async () => {
      const { gzipSync } = await import('node:zlib');
      const bomb = gzipSync(new Uint8Array(64 * 1024 * 1024), { level: 9 });
      expect(bomb.length).toBeLessThan(100 * 1024);
      const r = await m.post('add-entries', bomb, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' });
      expect(r.status).toBe(404); // an origin of zero bytes: not a log it mirrors
      // What was inflated before the refusal: the header's chunk, not the 64 MiB behind it.
      const refused = m.logs.filter(([e]) => e === 'mirror_refused_upload').at(-1)![1];
      expect(refused).toMatchObject({ origin: null, status: 404 });
      expect(refused.received as number).toBeLessThanOrEqual(1024 * 1024);
    });
  });

  describe('stale clients and concurrent uploads', () => {
    it('an upload may end at an older pending checkpoint; the mirror checkpoint never moves back', async () => {
      const l = logs.stale;
      expect((await m.post('add-checkpoint', l.addCheckpoint(0, 500))).status).toBe(200);
      expect((await m.post('add-checkpoint', l.addCheckpoint(500, 900))).status).toBe(200);
      expect((await m.entries(l.addEntries(0, 900))).status).toBe(200);
      // Ending at 500 now is below the mirror checkpoint: 409 naming the current pending size.
      const late = await m.entries(l.addEntries(500, 500));
      expect(late.status).toBe(409);
      expect(info(late)).toMatchObject({ size: 900, next: 900 });
      await readBack(m, l, 900);
    });

    it('two clients uploading the same range at once: each ends cosigned, resuming from a 409 if it lost the race, on one copy', async () => {
      const l = testLog('twice', 1000);
      const m2 = await testMirror([l], { env: await store() });
      try {
        expect((await m2.post('add-checkpoint', l.addCheckpoint(0, 1000))).status).toBe(200);
        const client = async (gzip: boolean) => {
          let r = await m2.entries(l.addEntries(0, 1000), gzip);
          // The other client got ahead by more than one package: told where to go on from.
          if (r.status === 409) r = await m2.entries(l.addEntries(info(r).next, 1000), gzip);
          return r.status;
        };
        expect(await Promise.all([client(true), client(false)])).toEqual([200, 200]);
        await readBack(m2, l, 1000);
      } finally {
        await m2.stop();
      }
    });

    it.runIf(backend === 'postgres')(
      'two instances on one database are one mirror: a checkpoint to one, entries to either, read from both',
      async () => {
        const l = testLog('instances', 900);
        const one = await testMirror([l], { env: await store() });
        const two = await testMirror([l], { dir: one.dir, env: one.env });
        try {
          expect((await one.post('add-checkpoint', l.addCheckpoint(0, 900))).status).toBe(200);
          const body = l.addEntries(0, 900);
          expect(info(await two.entries(body.subarray(0, body.length / 2))).next).toBe(256);
          expect((await one.entries(l.addEntries(256, 900))).status).toBe(200);
          await readBack(two, l, 900);
          await readBack(one, l, 900);
        } finally {
          await two.stop();
          await one.stop();
        }
      },
    );

    it('uploads stalled mid-body hold a place each; past eight the next is 503, and the stalled ones end at the body deadline', async () => {
      const l = testLog('stalled', 300);
      const m3 = await testMirror([l], { env: { ...(await store()), SVC_BODY_SECONDS: '2' } });
      try {
        expect((await m3.post('add-checkpoint', l.addCheckpoint(0, 300))).status).toBe(200);
        const port = Number(new URL(m3.url).port);
        const body = l.addEntries(0, 300);
        const head = `POST /add-entries HTTP/1.1\r\nhost: x\r\ncontent-type: application/octet-stream\r\ncontent-length: ${body.length}\r\n\r\n`;
        const stalled = Array.from({ length: 8 }, () => rawRequest(port, [head, body.subarray(0, 100)], { timeoutMs: 15_000 }));
        // Each stalled upload holds its place once its header is read: waited for, not timed.
        while (m3.running.mirror.inFlight < 8) await new Promise((r) => setTimeout(r, 10));
        const ninth = await m3.entries(body);
        expect(ninth.status).toBe(503);
        const ended = await Promise.all(stalled);
        // The deadline ends them without an answer the client could take for success.
        expect(ended.every((e) => e.status !== 200 && !e.timedOut)).toBe(true);
        expect((await m3.entries(body)).status).toBe(200);
      } finally {
        await m3.stop();
      }
    }, 30_000);
  });
});
