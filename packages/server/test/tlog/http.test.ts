// The tiled log over HTTP on both stores: checkpoints that open under the served vkeys and match
// the JSON head, tiles equal to an independent in-memory tree, the core's authenticating reader and
// Go's sumdb/tlog reading them, partial and beyond-the-tree tiles, and rule 2 for checkpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { namesFor } from '@svc/core';
import { fromHex, sha256, toHex } from '@svc/core/primitives';
import { MemoryTree, consistencyProof, treeRoot } from '@svc/core/merkle';
import {
  TileReader,
  encodeEntryBundle,
  encodeTile,
  noteVerifier,
  openNote,
  parseCheckpoint,
  parseVkey,
  tileNodes,
  type NoteVerifier,
} from '@svc/core/tlog';
import { Keyring, loadConfig, openLedger } from '../../src/internal.js';
import { BACKENDS, testDb, type BackendName } from '../support/backends.js';
import { goCheck } from '../support/go-tlog.js';
import { boot, call, type Booted } from '../support/harness.js';
import { runs } from '@svc/tools/system';

const N = 1000; // three full level-0 tiles, a partial one of 232, a partial level-1 tile of 3
const data = Array.from({ length: N }, (_, i) => sha256(new TextEncoder().encode(`tlog leaf ${i}`)));
const model = new MemoryTree();
for (const d of data) model.appendData(d);

async function bytes(url: string): Promise<{ status: number; body: Uint8Array; headers: Headers }> {
  const r = await fetch(url);
  return { status: r.status, body: new Uint8Array(await r.arrayBuffer()), headers: r.headers };
}

describe.each(BACKENDS)('%s', (backend: BackendName) => {
  let s: Booted;
  let prefix: string;
  let vkeys: NoteVerifier[];
  const env: Record<string, string> = {};

  beforeAll(async () => {
    if (backend === 'postgres') env.SVC_DATABASE_URL = (await testDb('postgres')).location;
    s = await boot({ ...(env.SVC_DATABASE_URL ? { databaseUrl: env.SVC_DATABASE_URL } : {}) }, {});
    prefix = `${s.url}/api/transparency/tlog/`;
    // Appended by a second ledger on the same store, as `svc issue` would: the server sees it.
    const cfg = loadConfig({ SVC_DATA_DIR: s.dir, SVC_LOG: '0', ...env });
    const l = await openLedger(cfg, namesFor(), Keyring.load(join(s.dir, 'keys')).ring, () => undefined, { background: false, batchMs: 0 });
    for (let i = 0; i < N; i += 250) {
      const p = l.append(data.slice(i, i + 250));
      await l.flush();
      await p;
    }
    await l.close();
    vkeys = (await (await fetch(`${prefix}vkeys`)).text()).trimEnd().split('\n').map(parseVkey);
  }, 120_000);
  afterAll(async () => s?.stop());

  it('serves vkeys for ML-DSA-44 subtree/v1, the ML-DSA-87 type and Ed25519, named by the origin', async () => {
    expect(vkeys.map((v) => v.type)).toEqual(['subtree/v1', 'mldsa87-subtree', 'ed25519']);
    const origin = vkeys[0]!.name;
    expect(vkeys.every((v) => v.name === origin)).toBe(true);
    expect(origin).toMatch(/^svc-ledger\.invalid\/[0-9a-f]{16}$/);
  });

  it('the CBOM lists each log key with its vkey, ML-DSA-44 and Ed25519 among the algorithms (Ed25519 as classical)', async () => {
    const bom = (await call(s.url, '/api/cbom?format=cyclonedx')).body;
    const listed = bom.components.flatMap((c: any) =>
      (c.properties ?? []).filter((p: any) => p.name === 'svc:vkey').map((p: any) => p.value),
    );
    expect(listed.sort()).toEqual(vkeys.map((v) => v.vkey).sort());
    const plain = (await call(s.url, '/api/cbom')).body;
    const algs = Object.fromEntries(plain.cryptography.map((a: any) => [a.name, a.status]));
    expect(algs['ML-DSA-44']).toContain('interoperability');
    expect(algs.Ed25519).toMatch(/^classical, interoperability only/);
    expect(plain.posture.loadBearingSignature).toBe('ML-DSA-87');
  });

  it('the checkpoint is the JSON head as a note every log key signed, dated with the head', async () => {
    const r = await fetch(`${prefix}checkpoint`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('public, max-age=2');
    const note = await r.text();
    const opened = openNote(note, vkeys);
    expect(opened.verified.map((v) => v.type)).toEqual(['subtree/v1', 'mldsa87-subtree', 'ed25519']);
    const c = parseCheckpoint(opened.note.text);
    const head = (await call(s.url, '/api/transparency/ledger')).body;
    const sth = JSON.parse(head.signed_tree_head.signed);
    expect(c).toEqual({ origin: vkeys[0]!.name, size: N, root: fromHex(sth.root_hash), extensions: [] });
    expect(toHex(c.root)).toBe(toHex(treeRoot(model, N)));
    for (const v of opened.verified.filter((x) => x.type !== 'ed25519')) expect(v.timestamp).toBe(Math.floor(sth.timestamp / 1000));
    // Deterministic: asked again, the same bytes.
    expect(await (await fetch(`${prefix}checkpoint`)).text()).toBe(note);
  });

  it('every tile and entry bundle equals the one an independent in-memory tree gives', async () => {
    const want: [string, Uint8Array][] = [];
    for (let n = 0; n < 3; n++) {
      want.push([`tile/0/00${n}`, encodeTile(tileNodes(0, n, 256).map((x) => model.subtree(x.level, x.index)))]);
      want.push([`tile/entries/00${n}`, encodeEntryBundle(data.slice(n * 256, n * 256 + 256))]);
    }
    want.push(['tile/0/003.p/232', encodeTile(tileNodes(0, 3, 232).map((x) => model.subtree(x.level, x.index)))]);
    want.push(['tile/0/003.p/7', encodeTile(tileNodes(0, 3, 7).map((x) => model.subtree(x.level, x.index)))]);
    want.push(['tile/entries/003.p/232', encodeEntryBundle(data.slice(768, 1000))]);
    want.push(['tile/1/000.p/3', encodeTile(tileNodes(1, 0, 3).map((x) => model.subtree(x.level, x.index)))]);
    for (const [path, body] of want) {
      const r = await bytes(prefix + path);
      expect(r.status, path).toBe(200);
      expect(toHex(r.body), path).toBe(toHex(body));
      expect(r.headers.get('content-type')).toBe('application/octet-stream');
      expect(r.headers.get('cache-control')).toBe(path.includes('.p/') ? 'public, max-age=3600' : 'public, max-age=31536000, immutable');
    }
    expect((await bytes(`${prefix}tile/0/000`)).body.length).toBe(8192);
  });

  it('a tile the tree does not hold, or a path that is not a tile, is 404', async () => {
    for (const path of [
      'tile/0/003', // partial: never served as full
      'tile/0/003.p/233',
      'tile/0/004.p/1',
      'tile/1/000',
      'tile/1/000.p/4',
      'tile/2/000.p/1',
      'tile/entries/003',
      'tile/entries/004.p/1',
      'tile/0/x000/000',
      'tile/0/000.p/256',
      'tile/0/000.p/0',
      'tile/00/000',
      'tile/64/000',
      'tile/0/0',
      'tile/0/000/',
      'tile/-1/000',
      `tile/0/${'x000/'.repeat(40)}000`,
    ]) {
      const r = await call(s.url, `/api/transparency/tlog/${path}`);
      expect(r.status, path).toBe(404);
      expect(r.body.code).toBe('not_found');
    }
    const head = await fetch(`${prefix}tile/0/001`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('8192');
    expect((await call(s.url, '/api/transparency/tlog/tile/0/000', { method: 'POST', json: {} })).status).toBe(405);
    expect((await fetch(`${prefix}tile/0/000`, { method: 'OPTIONS' })).status).toBe(204);
  });

  it("the core's reader authenticates every tile against the checkpoint and proves like the JSON endpoints", async () => {
    const c = parseCheckpoint(openNote(await (await fetch(`${prefix}checkpoint`)).text(), vkeys).note.text);
    const r = new TileReader(async (p) => {
      const res = await bytes(prefix + p);
      if (res.status !== 200) throw new Error(`${res.status} ${p}`);
      return res.body;
    }, c);
    await r.checkRoot();
    expect(await r.entries(0, N)).toEqual(data);
    const json = (await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer_sha256: toHex(data[777]!) } })).body;
    expect((await r.inclusionProof(777)).map(toHex)).toEqual(json.proof);
    expect(await r.consistencyProof({ size: 300, root: treeRoot(model, 300) })).toEqual(consistencyProof(model, 300, N));
  });

  it.runIf(runs('go'))(
    "Go's sumdb/tlog and sumdb/note read the served log: every tile authenticated, every entry proved",
    async () => {
      const report = await goCheck(prefix, vkeys.find((v) => v.type === 'ed25519')!.vkey, 300);
      expect(report).toMatchObject({ origin: vkeys[0]!.name, size: N, entries: N, older: 300 });
    },
    120_000,
  );

  it.runIf(runs('go'))(
    "the Go reader fails on a stranger's key, and on one changed byte of a tile or entry bundle behind a proxy",
    async () => {
      const stranger = noteVerifier(vkeys[0]!.name, 'ed25519', new Uint8Array(32).fill(9)).vkey;
      await expect(goCheck(prefix, stranger)).rejects.toThrow(/note.Open/);
      for (const target of ['tile/0/001', 'tile/entries/002', 'tile/1/000.p/3']) {
        const proxy = createServer(async (req, res) => {
          const r = await bytes(prefix + req.url!.slice(1));
          const body = r.body.slice();
          if (req.url === `/${target}`) body[body.length >> 1] = body[body.length >> 1]! ^ 1;
          res.writeHead(r.status, { 'content-length': body.length }).end(body);
        });
        await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
        try {
          const at = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
          await expect(goCheck(at, vkeys.find((v) => v.type === 'ed25519')!.vkey), target).rejects.toThrow();
        } finally {
          proxy.close();
        }
      }
    },
    120_000,
  );

  it('rule 2: while the head is withheld no checkpoint is signed, and the reason is the same (503)', async () => {
    // A high-water mark larger than the log: a rollback, as after restoring an old copy.
    writeFileSync(join(s.dir, 'keys', 'high-water.json'), JSON.stringify({ tree_size: N + 5, root_hash: 'ab'.repeat(32) }));
    const head = (await call(s.url, '/api/transparency/ledger')).body;
    expect(head.sth_withheld).toBe('rollback');
    const r = await call(s.url, '/api/transparency/tlog/checkpoint');
    expect(r.status).toBe(503);
    expect(r.body.code).toBe('unavailable');
    expect(r.body.error).toContain('(rollback)');
    expect(r.headers.get('cache-control')).toBe('no-store');
    // Tiles are data, not statements: still served, still authenticated by whoever reads them.
    expect((await bytes(`${prefix}tile/0/000`)).status).toBe(200);
  });
});

describe('without the ledger, or without Ed25519', () => {
  it('the tlog endpoints are 404 with the ledger off, and the CBOM lists no log key', async () => {
    const s = await boot({ ledger: false });
    try {
      for (const p of ['checkpoint', 'vkeys', 'tile/0/000']) expect((await call(s.url, `/api/transparency/tlog/${p}`)).status, p).toBe(404);
      const algs = (await call(s.url, '/api/cbom')).body.cryptography.map((a: any) => a.name);
      expect(algs).not.toContain('ML-DSA-44');
      expect(algs).not.toContain('Ed25519');
    } finally {
      await s.stop();
    }
  });

  it('SVC_LOG_ED25519=off: no Ed25519 line, vkey or CBOM entry', async () => {
    const s = await boot({ logEd25519: false });
    try {
      const vk = (await (await fetch(`${s.url}/api/transparency/tlog/vkeys`)).text()).trimEnd().split('\n').map(parseVkey);
      expect(vk.map((v) => v.type)).toEqual(['subtree/v1', 'mldsa87-subtree']);
      const note = await (await fetch(`${s.url}/api/transparency/tlog/checkpoint`)).text();
      expect(openNote(note, vk).verified).toHaveLength(2);
      expect(
        note
          .trimEnd()
          .split('\n')
          .filter((l) => l.startsWith('\u2014')),
      ).toHaveLength(2);
      expect((await call(s.url, '/api/cbom')).body.cryptography.map((a: any) => a.name)).not.toContain('Ed25519');
    } finally {
      await s.stop();
    }
  });
});
