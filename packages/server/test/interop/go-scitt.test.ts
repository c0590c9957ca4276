// SCITT read by code this project did not write (#34): a Go checker on fxamacker/cbor, Go's
// crypto/ed25519 and x/mod's sumdb/note and sumdb/tlog (interop/go-scitt) first agrees with the
// scitt-cose vectors (written by others), then accepts what this server emits: an Ed25519-signed
// statement it registered, and its Ed25519 receipt, whose root x/mod's tlog finds to be the root of
// the log's C2SP checkpoint at that size. A receipt with one path byte changed is refused.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256, toBase64Url, toHex, utf8 } from '@svc/core/primitives';
import { ed25519Signer } from '@svc/core/envelope';
import { signStatement, statementLeaf } from '@svc/core/scitt';
import { parseVkey } from '@svc/core/tlog';
import { boot, type Booted } from '../support/harness.js';
import { goProgram } from '../support/go-tlog.js';
import { runs } from '@svc/tools/system';

const VECTORS = new URL('../../../../test-vectors/external/scitt-cose/v1/', import.meta.url);

type Verdict = { ok: true; [k: string]: unknown } | { ok: false; error: string };
async function go(...args: string[]): Promise<Verdict> {
  try {
    const { stdout } = await promisify(execFile)(goProgram('go-scitt'), args, { encoding: 'utf8', timeout: 60_000 });
    return JSON.parse(stdout) as Verdict;
  } catch (e) {
    return { ok: false, error: String((e as { stderr?: string }).stderr ?? e).trim() };
  }
}

/** The raw 32-byte Ed25519 key of a PEM SPKI file (its last 32 bytes), in base64. */
const pemKey = (file: URL) =>
  Buffer.from(
    readFileSync(file, 'utf8')
      .replace(/-----[^-]+-----/g, '')
      .replace(/\s+/g, ''),
    'base64',
  )
    .subarray(-32)
    .toString('base64');

describe.runIf(runs('go'))('an independent Go checker (fxamacker/cbor, crypto/ed25519, x/mod)', () => {
  it("reaches the scitt-cose vectors' verdicts and values for their Ed25519 statements and receipts", async () => {
    for (const id of ['valid-eddsa', 'fail-tampered-path', 'fail-bad-statement-sig']) {
      const dir = new URL(`${id}/`, VECTORS);
      const expected = JSON.parse(readFileSync(new URL('expected.json', dir), 'utf8'));
      const statement = await go('statement', pemKey(new URL('issuer-key.pub', dir)), join(dir.pathname, 'statement.cose'));
      const receipt = await go('receipt', pemKey(new URL('log-key.pub', dir)), expected.leaf_entry, join(dir.pathname, 'receipt.cose'));
      expect([statement.ok, receipt.ok], id).toEqual([expected.statement_signature_valid !== false, expected.receipt_valid !== false]);
      if (statement.ok) expect(statement.leaf).toBe(expected.leaf_entry);
      if (receipt.ok)
        expect(receipt).toMatchObject({ root: expected.reconstructed_root, index: expected.leaf_index, size: expected.tree_size });
    }
  });
});

describe.runIf(runs('go'))("an independent Go checker accepts this server's SCITT output", () => {
  const issuer = ed25519Signer(sha256(utf8('go-scitt issuer')));
  let s: Booted;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-go-scitt-'));
    writeFileSync(join(dir, 'issuers.json'), JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: toBase64Url(issuer.publicKey) }] }));
    s = await boot({ ledgerBatchMs: 20 }, { SVC_SCITT_ISSUERS: join(dir, 'issuers.json') });
  });
  afterAll(() => s.stop());

  it('an Ed25519 statement it registered, and its Ed25519 receipt at the C2SP checkpoint x/mod opens', async () => {
    // Five statements registered together: a tree of more than one leaf, so every receipt has a path.
    const made = Array.from({ length: 5 }, (_, n) =>
      signStatement(
        {
          answerSha256: sha256(utf8(`read in Go ${n}`)),
          iss: 'go',
          sub: `urn:go:${n}`,
          iat: 1_767_225_600,
          typ: 'application/vnd.test+cose',
        },
        issuer,
      ),
    );
    const posts = await Promise.all(
      made.map((body) =>
        fetch(`${s.url}/entries`, {
          method: 'POST',
          body: body as BodyInit,
          headers: { 'content-type': 'application/cose' },
          redirect: 'manual',
        }),
      ),
    );
    // 201 with the receipt, or 303 where no published checkpoint covered it within the server's
    // wait (a loaded machine): then the receipt is there once one does.
    expect(posts.every((p) => p.status === 201 || p.status === 303)).toBe(true);
    expect(posts.filter((p) => p.status === 201).length).toBeGreaterThan(0);
    const [statement, posted] = [made[4]!, posts[4]!];
    // (302 to itself while pending: read by hand, not followed.)
    const receiptAt = () => fetch(`${s.url}${posted.headers.get('location')}?alg=EdDSA`, { redirect: 'manual' });
    let got = await receiptAt();
    for (const until = Date.now() + 60_000; got.status !== 200 && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 100));
      got = await receiptAt();
    }
    expect(got.status).toBe(200);
    const receipt = new Uint8Array(await got.arrayBuffer());
    const checkpoint = await (await fetch(`${s.url}/api/transparency/tlog/checkpoint`)).text();
    const vkey = (await (await fetch(`${s.url}/api/transparency/tlog/vkeys`)).text())
      .trimEnd()
      .split('\n')
      .find((v) => parseVkey(v).type === 'ed25519')!;
    const logKey = Buffer.from(parseVkey(vkey).publicKey).toString('base64');
    const files = mkdtempSync(join(tmpdir(), 'svc-go-scitt-files-'));
    const at = (name: string, b: Uint8Array | string) => (writeFileSync(join(files, name), b), join(files, name));
    const leaf = toHex(statementLeaf(statement));
    expect(await go('statement', Buffer.from(issuer.publicKey).toString('base64'), at('statement.cose', statement))).toEqual({
      ok: true,
      leaf,
    });
    const cp = at('checkpoint', checkpoint);
    const read = await go('receipt', logKey, leaf, at('receipt.cose', receipt), cp, vkey);
    expect(read).toMatchObject({ ok: true, checkpoint: expect.any(Number) });
    expect(read.ok && read.size).toBe(read.ok && read.checkpoint);
    expect(read.ok && (read.size as number)).toBeGreaterThanOrEqual(5);
    // One changed byte of the path (the proof sits near the end, before the 64-byte signature).
    const damaged = receipt.slice();
    damaged[damaged.length - 80]! ^= 1;
    expect(await go('receipt', logKey, leaf, at('damaged.cose', damaged), cp, vkey)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/does not cover the root the path rebuilds/),
    });
    // Another statement's leaf does not fit the path.
    expect(await go('receipt', logKey, toHex(sha256(utf8('another'))), join(files, 'receipt.cose'), cp, vkey)).toMatchObject({ ok: false });
  });
});
