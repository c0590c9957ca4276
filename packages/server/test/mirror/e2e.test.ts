// This project's own log, mirrored end to end: a ledger served by svc serve, `svc mirror push`
// bringing a mirror the test starts up to its checkpoint, the mirror's cosignature checked with Go's
// crypto/ed25519, its tiles read back by Go's sumdb/tlog (code this project did not write) and by
// `svc ledger monitor`, then the log grown and pushed again, consistent with what was mirrored.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namesFor } from '@svc/core';
import { sha256, sha256Hex } from '@svc/core/primitives';
import {
  logKeygen,
  logPolicy,
  noteSigner,
  openNote,
  parseCheckpoint,
  parseNote,
  parsePolicy,
  parseVkey,
  type NoteVerifier,
} from '@svc/core/tlog';
import { runs } from '@svc/tools/system';
import { Keyring, loadConfig, openLedger } from '../../src/internal.js';
import { Witnessing } from '../../src/tlog/witnessing.js';
import { goCheck, goCosig } from '../support/go-tlog.js';
import { boot, type Booted } from '../support/harness.js';
import { testMirror, type TestMirror } from '../support/mirror.js';
import { runSvc, runSvcProcess } from '../support/svc-cli.js';

let s: Booted;
let m: TestMirror;
let prefix: string;
let logKeys: NoteVerifier[];
const work = mkdtempSync(join(tmpdir(), 'svc-mirror-e2e-'));
const data = (i: number) => sha256(new TextEncoder().encode(`mirrored leaf ${i}`));

async function append(from: number, to: number): Promise<void> {
  const cfg = loadConfig({ SVC_DATA_DIR: s.dir, SVC_LOG: '0' });
  const l = await openLedger(cfg, namesFor(), Keyring.load(join(s.dir, 'keys')).ring, () => undefined, { background: false, batchMs: 0 });
  const p = l.append(Array.from({ length: to - from }, (_, k) => data(from + k)));
  await l.flush();
  await p;
  await l.close();
}

beforeAll(async () => {
  s = await boot({}, {});
  prefix = `${s.url}/api/transparency/tlog/`;
  await append(0, 1000);
  logKeys = (await (await fetch(`${prefix}vkeys`)).text()).trimEnd().split('\n').map(parseVkey);
  // The mirror trusts every key of the log (ML-DSA-44, ML-DSA-87, Ed25519), as a policy's log lines.
  m = await testMirror(logKeys.map((k) => k.vkey));
}, 120_000);
afterAll(async () => {
  await m?.stop();
  await s?.stop();
});

const ed25519 = () => logKeys.find((k) => k.type === 'ed25519')!;
const mirrored = () => `${m.url}/${sha256Hex(ed25519().name)}/`;

describe('svc mirror push, to a mirror of this log', () => {
  it('brings the mirror up to the checkpoint in requests of two packages, and prints its cosignature', async () => {
    const r = await runSvcProcess(['mirror', 'push', '--log', prefix, '--vkey', ed25519().vkey, '--mirror', m.url, '--packages', '2']);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const note = await (await fetch(`${mirrored()}checkpoint`)).text();
    // The log's three lines are kept (each verified by the mirror), then the mirror's two.
    expect(openNote(note, logKeys).verified).toHaveLength(3);
    expect(openNote(note, m.vkeys).verified).toHaveLength(2);
    expect(note.endsWith(`${lines.join('\n')}\n`)).toBe(true);
    expect(parseCheckpoint(openNote(note, logKeys).note.text).size).toBe(1000);
    // Four packages (three of 256, one of 232), two a request: a 202, then the 200.
    expect(m.logs.filter(([e, f]) => e === 'request' && f.path === '/add-entries').map(([, f]) => f.status)).toEqual([202, 200]);
  }, 120_000);

  it.runIf(runs('go'))(
    "Go's sumdb/tlog reads every mirrored entry into the log's root, and crypto/ed25519 checks the mirror's cosignature",
    async () => {
      expect(await goCheck(mirrored(), ed25519().vkey)).toMatchObject({ size: 1000, entries: 1000 });
      const file = join(work, 'mirrored-checkpoint');
      writeFileSync(file, await (await fetch(`${mirrored()}checkpoint`)).text());
      const mirrorEd = m.vkeys.find((k) => k.type === 'cosignature/v1')!;
      expect(await goCosig(mirrorEd.publicKey, file, mirrorEd.name)).toEqual({ checked: 1 });
    },
    120_000,
  );

  it('the log grows, is pushed again from where the mirror is, and the monitor follows it from the mirror', async () => {
    const state = join(work, 'monitor.json');
    const first = await runSvc(['ledger', 'monitor', '--tiles', mirrored(), '--vkey', ed25519().vkey, '--state', state]);
    expect(first.code, first.err).toBe(0);
    await append(1000, 1300);
    const again = await runSvcProcess(['mirror', 'push', '--log', prefix, '--vkey', ed25519().vkey, '--mirror', m.url]);
    expect(again.code, again.err).toBe(0);
    const next = await runSvc(['ledger', 'monitor', '--tiles', mirrored(), '--vkey', ed25519().vkey, '--state', state]);
    expect(next.code, next.err).toBe(0);
    expect(next.out).toContain('size 1300, consistent with size 1000; 300 new entries');
    if (runs('go')) expect(await goCheck(mirrored(), ed25519().vkey, 1000)).toMatchObject({ size: 1300, entries: 1300, older: 1000 });
  }, 120_000);

  it("a log whose witness policy names the mirror pushes it the new entries, and publishes with the mirror's cosignature in the quorum", async () => {
    await append(1300, 1500);
    const mirrorKey = m.vkeys.find((k) => k.type === 'cosignature/v1')!;
    const policy = `log ${ed25519().vkey}\nwitness m ${mirrorKey.vkey} ${m.url}\nquorum m\n`;
    const events: Array<[string, Record<string, unknown>]> = [];
    const cfg = loadConfig({ SVC_DATA_DIR: s.dir, SVC_LOG: '0' });
    const l = await openLedger(cfg, namesFor(), Keyring.load(join(s.dir, 'keys')).ring, () => undefined, { background: false, batchMs: 0 });
    try {
      const w = new Witnessing(l, parsePolicy(policy), { log: (e, f) => void events.push([e, f ?? {}]), timeoutMs: 30_000 });
      await w.round();
      const published = w.publishedNote();
      expect(published, JSON.stringify(events)).not.toBeNull();
      expect(logPolicy(policy).checkCheckpoint(parseNote(published!), ed25519().name)).toMatchObject({
        signaturesOk: true,
        quorumMet: true,
      });
      expect(parseCheckpoint(openNote(published!, logKeys).note.text).size).toBe(1500);
      expect(events.find(([e]) => e === 'mirror_pushed')?.[1]).toMatchObject({ witness: 'm', size: 1500 });
      // What the mirror serves is that checkpoint, cosigned.
      const served = await (await fetch(`${mirrored()}checkpoint`)).text();
      expect(parseCheckpoint(openNote(served, m.vkeys).note.text).size).toBe(1500);
    } finally {
      await l.close();
    }
  }, 120_000);

  it("svc ledger monitor --policy counts the mirror's cosignature in the quorum, read from the mirror", async () => {
    const mirrorKey = m.vkeys.find((k) => k.type === 'cosignature/v1')!;
    const policy = join(work, 'mirror-quorum.txt');
    writeFileSync(policy, `log ${ed25519().vkey}\nwitness m ${mirrorKey.vkey}\nquorum m\n`);
    const args = ['ledger', 'monitor', '--tiles', mirrored(), '--vkey', ed25519().vkey, '--policy', policy];
    const r = await runSvc([...args, '--state', join(work, 'monitor-policy.json')]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('witness quorum met (1 cosignatures)');
    // A policy naming another mirror's key: the quorum is not met, and the monitor says so (exit 3).
    const other = join(work, 'other-quorum.txt');
    const stranger = noteSigner('other-mirror.invalid', logKeygen('cosignature/v1', new Uint8Array(32).fill(9))).vkey;
    writeFileSync(other, `log ${ed25519().vkey}\nwitness o ${stranger}\nquorum o\n`);
    const missed = await runSvc([...args.slice(0, -1), other, '--state', join(work, 'monitor-other.json')]);
    expect(missed.code).toBe(3);
    expect(missed.out + missed.err).toMatch(/quorum/i);
  }, 120_000);

  it('a log that cannot read its own tiles gets no cosignature from a mirror: it says so and publishes nothing', async () => {
    const mirrorKey = m.vkeys.find((k) => k.type === 'cosignature/v1')!;
    const policy = `log ${ed25519().vkey}\nwitness m ${mirrorKey.vkey} ${m.url}\nquorum m\n`;
    const events: string[] = [];
    const cfg = loadConfig({ SVC_DATA_DIR: s.dir, SVC_LOG: '0' });
    const l = await openLedger(cfg, namesFor(), Keyring.load(join(s.dir, 'keys')).ring, () => undefined, { background: false, batchMs: 0 });
    try {
      await append(1500, 1600);
      const noTiles = {
        checkpoint: () => l.checkpoint(),
        consistency: (a: number, b: number | undefined, x: boolean) => l.consistency(a, b, x),
      };
      const w = new Witnessing(noTiles, parsePolicy(policy), { log: (e) => void events.push(e), timeoutMs: 30_000 });
      await w.round();
      expect(w.publishedNote()).toBeNull();
      expect(events).toContain('mirror_not_pushed');
      expect(events).toContain('witness_quorum_missed');
    } finally {
      await l.close();
    }
  }, 120_000);

  it('push refuses a vkey that did not sign the log, and a mirror that is not there', async () => {
    const stranger = 'svc-ledger.invalid/0000000000000000+5d5b0f0a+AXfJm5zo1nAkCBL4v1Dd2P2G4fQxX1s7zAdlAiQ6Un8k';
    const bad = await runSvc(['mirror', 'push', '--log', prefix, '--vkey', stranger, '--mirror', m.url]);
    expect(bad.code).toBe(2);
    const gone = await runSvc(['mirror', 'push', '--log', prefix, '--vkey', ed25519().vkey, '--mirror', 'http://127.0.0.1:9']);
    expect(gone.code).toBe(2);
    expect(gone.err).toMatch(/^svc: mirror push: /);
  });
});
