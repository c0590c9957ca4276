// tlog-witness sign-subtree on `svc witness serve` (issue 55, item 3): a subtree of a checkpoint the
// witness cosigned gets one ML-DSA-44 subtree/v1 line with timestamp 0; everything else gets the
// status tlog-witness gives it, over HTTP, and the witness keeps serving.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256, utf8 } from '@svc/core/primitives';
import { MemoryTree, treeRoot } from '@svc/core/merkle';
import { rangeHash, subtreeProof } from '@svc/core/merkle';
import {
  formatAddCheckpoint,
  formatCheckpoint,
  formatSignSubtree,
  logKeygen,
  noteSigner,
  openSubtreeSignatures,
  signNote,
} from '@svc/core/tlog';
import { freePort } from '../support/harness.js';
import { startWitness, stopWitness, type WitnessProc } from '../support/witness-proc.js';

const ORIGIN = 'subtree.test/log';
const logKey = noteSigner(ORIGIN, logKeygen('ed25519', sha256(utf8(ORIGIN))));
const work = mkdtempSync(join(tmpdir(), 'svc-sign-subtree-'));
let w: WitnessProc;
const t = new MemoryTree();
for (let i = 0; i < 300; i++) t.appendData(utf8(`entry ${i}`));

const checkpoint = (n: number) =>
  signNote(formatCheckpoint({ origin: ORIGIN, size: n, root: treeRoot(t, n), extensions: [] }), [logKey], 1_767_225_600);
const post = async (path: string, body: string | Uint8Array) => {
  const r = await fetch(`${w.url}/${path}`, { method: 'POST', body: body as BodyInit });
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
};
let cosigned: string;

beforeAll(async () => {
  const policy = join(work, 'policy.txt');
  writeFileSync(policy, `log ${logKey.vkey}\nquorum none\n`);
  const port = await freePort();
  w = { name: 'subtree.witness.test', dir: join(work, 'w'), port, url: `http://127.0.0.1:${port}`, vkeys: [], child: null, logs: '' };
  await startWitness(w, policy);
  const note = checkpoint(300);
  const a = await post('add-checkpoint', formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: note }));
  expect(a.status, a.text).toBe(200);
  cosigned = note + a.text;
}, 60_000);
afterAll(async () => {
  await stopWitness(w);
  rmSync(work, { recursive: true, force: true });
});

const ask = (start: number, end: number, cp = cosigned, hash = rangeHash(t, start, end), size = 300) =>
  post('sign-subtree', formatSignSubtree({ start, end, hash, proof: subtreeProof(t, start, end, size), checkpoint: cp }));

describe('sign-subtree over HTTP', () => {
  it('cosigns subtrees of a checkpoint it cosigned: one subtree/v1 line each, which a reader verifies', async () => {
    for (const [start, end] of [
      [256, 300],
      [0, 300],
      [128, 256],
      [299, 300],
      [0, 1],
    ] as const) {
      const r = await ask(start, end);
      expect(r.status, r.text).toBe(200);
      expect(r.type).toMatch(/^text\/plain/);
      const s = { origin: ORIGIN, start, end, hash: rangeHash(t, start, end) };
      const lines = openSubtreeSignatures(r.text, s, w.vkeys);
      expect(lines.map((l) => l.name)).toEqual([w.name]);
      expect(new DataView(lines[0]!.signature.buffer, lines[0]!.signature.byteOffset).getBigUint64(0)).toBe(0n);
    }
    expect(w.logs).toContain('witness_signed_subtree');
  });

  it('refuses with the documented statuses, and keeps serving', async () => {
    const stranger = noteSigner('stranger.test/log', logKeygen('ed25519', sha256(utf8('stranger'))));
    const strangerCp = signNote(
      formatCheckpoint({ origin: 'stranger.test/log', size: 300, root: treeRoot(t, 300), extensions: [] }),
      [stranger],
      1,
    );
    const cases: [string, Promise<{ status: number }>, number][] = [
      ['garbage', post('sign-subtree', 'garbage\n\ngarbage'), 400],
      ['not UTF-8', post('sign-subtree', new Uint8Array([0x73, 0xff, 0x0a, 0x0a])), 400],
      [
        'not a subtree',
        post('sign-subtree', formatSignSubtree({ start: 257, end: 300, hash: rangeHash(t, 256, 300), proof: [], checkpoint: cosigned })),
        400,
      ],
      [
        'past the checkpoint',
        post('sign-subtree', formatSignSubtree({ start: 256, end: 301, hash: rangeHash(t, 256, 300), proof: [], checkpoint: cosigned })),
        400,
      ],
      ['an unknown log', ask(256, 300, strangerCp), 404],
      ['only the log signed it', ask(256, 300, checkpoint(300)), 403],
      ['a wrong hash', ask(256, 300, cosigned, rangeHash(t, 256, 299)), 422],
      ['a proof for another size', ask(256, 299, cosigned, rangeHash(t, 256, 299), 299), 422],
      ['over the 2 MB body limit', post('sign-subtree', new Uint8Array(3 * 2 ** 20)), 413],
    ];
    for (const [what, p, status] of cases) expect((await p).status, what).toBe(status);
    expect((await fetch(`${w.url}/sign-subtree`)).status).toBe(405);
    expect((await ask(128, 256)).status).toBe(200);
  });
});

describe('svc ledger subtree: the cosignature checked offline', () => {
  it("passes the witness's answer, and fails a changed hash, another witness's key and a proof that leads elsewhere", async () => {
    const { runSvc } = await import('../support/svc-cli.js');
    const body = formatSignSubtree({
      start: 256,
      end: 300,
      hash: rangeHash(t, 256, 300),
      proof: subtreeProof(t, 256, 300, 300),
      checkpoint: cosigned,
    });
    const answer = (await post('sign-subtree', body)).text;
    const files = (name: string, req: string, ans: string) => {
      writeFileSync(join(work, `${name}.req`), req);
      writeFileSync(join(work, `${name}.ans`), ans);
      return ['--request', join(work, `${name}.req`), '--answer', join(work, `${name}.ans`)];
    };
    const vkeys = w.vkeys.flatMap((k) => ['--vkey', k.vkey]);
    const ok = await runSvc(['ledger', 'subtree', ...files('ok', body, answer), ...vkeys]);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain(`SUBTREE OK: [256, 300) of ${ORIGIN} (size 300) cosigned by ${w.name}.`);
    // The same answer for another hash of the same range: the line does not sign it.
    const otherHash = formatSignSubtree({
      start: 256,
      end: 300,
      hash: rangeHash(t, 0, 44),
      proof: subtreeProof(t, 256, 300, 300),
      checkpoint: cosigned,
    });
    const bad = await runSvc(['ledger', 'subtree', ...files('hash', otherHash, answer), ...vkeys]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^SUBTREE NOT VERIFIED: /);
    const stranger = noteSigner(w.name, logKeygen('subtree/v1', sha256(utf8('another witness'))));
    expect((await runSvc(['ledger', 'subtree', ...files('key', body, answer), '--vkey', stranger.vkey, '--vkey', logKey.vkey])).code).toBe(
      1,
    );
    const noProof = formatSignSubtree({ start: 256, end: 300, hash: rangeHash(t, 256, 300), proof: [], checkpoint: cosigned });
    const np = await runSvc(['ledger', 'subtree', ...files('proof', noProof, answer), ...vkeys]);
    expect(np.code).toBe(1);
    expect(np.out).toContain('does not lead');
    expect((await runSvc(['ledger', 'subtree', '--request', join(work, 'ok.req'), ...vkeys])).code).toBe(2);
  }, 60_000);
});
