// Two instances sharing one PostgreSQL ledger and one keyring (as docs/deploy says to run several):
// a statement registered on one has a receipt from the other, for that one's published checkpoint,
// verifiable with either's published keys. The database is real, started by the test project.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toHex } from '@svc/core/primitives';
import { mlDsa87Signer, readCoseKeySet } from '@svc/core/envelope';
import { signStatement, statementLeaf, verifyReceipt } from '@svc/core/scitt';
import { parseCheckpoint, parseNote } from '@svc/core/tlog';
import { Keyring, loadConfig, startServer, type Running } from '../../src/internal.js';
import { freshPgDatabase } from '../support/backends.js';
import { boot, type Booted } from '../support/harness.js';
import { runs } from '@svc/tools/system';

let a: Booted | undefined;
let b: Running | undefined;
const dirB = mkdtempSync(join(tmpdir(), 'svc-scitt-pg-'));
afterAll(async () => {
  await b?.close();
  await a?.stop();
  rmSync(dirB, { recursive: true, force: true });
});

const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());

describe.runIf(runs('postgres'))('SCITT on a shared PostgreSQL ledger', () => {
  it("registered on one instance, its receipt comes from the other and verifies with either one's keys", async () => {
    const url = await freshPgDatabase();
    a = await boot({ databaseUrl: url, ledgerBatchMs: 20 });
    cpSync(join(a.dir, 'keys'), join(dirB, 'keys'), { recursive: true });
    b = await startServer(
      loadConfig({ SVC_DATA_DIR: dirB, PORT: '0', SVC_LOG: '0', SVC_WORKERS: '1' }, { databaseUrl: url, ledgerBatchMs: 20 }),
    );
    const answer = Keyring.load(join(a.dir, 'keys')).ring.get('answer');
    const st = signStatement(
      {
        answerSha256: new Uint8Array(32).fill(7),
        iss: 'svc',
        sub: 'urn:svc:answer:07',
        iat: 1,
        typ: 'application/vnd.svc.answer-statement+cose',
      },
      mlDsa87Signer(answer),
    );
    const reg = await fetch(`${a.url}/entries`, { method: 'POST', body: st as BodyInit, headers: { 'content-type': 'application/cose' } });
    expect(reg.status).toBe(201);
    const id = toHex(statementLeaf(st));
    const fromB = await fetch(`${b.url}/entries/${id}`);
    expect(fromB.status).toBe(200);
    const receipt = await bytes(fromB);
    const cpB = parseCheckpoint(parseNote(await (await fetch(`${b.url}/api/transparency/tlog/checkpoint`)).text()).text);
    for (const s of [a.url, b.url]) {
      const keys = readCoseKeySet(await bytes(await fetch(`${s}/.well-known/scitt-keys`)));
      const v = verifyReceipt(receipt, statementLeaf(st), { keys });
      expect(v.ok, JSON.stringify(v)).toBe(true);
      if (s === b.url)
        expect(verifyReceipt(receipt, statementLeaf(st), { keys, checkpoint: { size: cpB.size, root: cpB.root } }).ok).toBe(true);
    }
    // The same answer key signed it on both: either one's policy registers it again as the same entry.
    const again = await fetch(`${b.url}/entries`, {
      method: 'POST',
      body: st as BodyInit,
      headers: { 'content-type': 'application/cose' },
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('location')).toBe(`/entries/${id}`);
  });
});
