// svc ledger tiles, monitor and prove --tlog-proof as people run them: a static export that a
// plain web server (Python's http.server) serves and Go's sumdb/tlog reads; increments that write
// only what changed; monitors that pass an honest log and exit 3 on forks, rollbacks and bad tiles.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namesFor, verifyBundle } from '@svc/core';
import { sha256, toHex, utf8 } from '@svc/core/primitives';
import { leafHash } from '@svc/core/merkle';
import { logPolicy, parseTlogProof, parseVkey, verifyTlogProof } from '@svc/core/tlog';
import { Keyring, loadConfig, openLedger } from '../../src/internal.js';
import { goCheck } from '../support/go-tlog.js';
import { boot, freePort, type Booted } from '../support/harness.js';
import { runSvc } from '../support/svc-cli.js';
import { runs } from '@svc/tools/system';

let s: Booted;
let work: string;
let vkeys: string[];
const env = () => ({ SVC_DATA_DIR: s.dir, SVC_LOG: '0' });

async function append(from: number, to: number): Promise<void> {
  const cfg = loadConfig({ SVC_DATA_DIR: s.dir, SVC_LOG: '0' });
  const l = await openLedger(cfg, namesFor(), Keyring.load(join(s.dir, 'keys')).ring, () => undefined, { background: false, batchMs: 0 });
  const leaves = Array.from({ length: to - from }, (_, i) => sha256(utf8(`cli leaf ${from + i}`)));
  const p = l.append(leaves);
  await l.flush();
  await p;
  await l.close();
}

/** Every file under `dir` with its modification time. */
function files(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(p.slice(dir.length + 1), statSync(p).mtimeMs);
    }
  };
  walk(dir);
  return out;
}

/** A static web server that knows nothing of this project: Python's http.server over `dir`. */
async function pythonServer(dir: string): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child: ChildProcess = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir], {
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}checkpoint`)).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, stop: () => child.kill() };
}

beforeAll(async () => {
  s = await boot({});
  work = mkdtempSync(join(tmpdir(), 'svc-tlog-cli-'));
  await append(0, 700);
  vkeys = (await (await fetch(`${s.url}/api/transparency/tlog/vkeys`)).text()).trimEnd().split('\n');
}, 120_000);
afterAll(async () => s?.stop());

describe('svc ledger tiles', () => {
  it('exports a static log that Python serves and Go reads; increments write only what changed; reruns write nothing', async () => {
    const out = join(work, 'mirror');
    const first = await runSvc(['ledger', 'tiles', '--out', out], { env: env() });
    expect(first.code, first.err).toBe(0);
    expect(first.out).toMatch(/Exported 700 leaves/);
    const before = files(out);
    expect([...before.keys()].sort()).toEqual(
      [
        'checkpoint',
        'tile/0/000',
        'tile/0/001',
        'tile/0/002.p/188',
        'tile/1/000.p/2',
        'tile/entries/000',
        'tile/entries/001',
        'tile/entries/002.p/188',
      ].sort(),
    );
    const web = await pythonServer(out);
    try {
      const ed = vkeys.find((v) => parseVkey(v).type === 'ed25519')!;
      if (runs('go')) expect(await goCheck(web.url, ed)).toMatchObject({ size: 700, entries: 700 });
      // Byte for byte what the server serves.
      for (const f of before.keys())
        if (f !== 'checkpoint')
          expect(toHex(readFileSync(join(out, f))), f).toBe(
            toHex(new Uint8Array(await (await fetch(`${s.url}/api/transparency/tlog/${f}`)).arrayBuffer())),
          );
      expect(readFileSync(join(out, 'checkpoint'), 'utf8')).toBe(await (await fetch(`${s.url}/api/transparency/tlog/checkpoint`)).text());

      const again = await runSvc(['ledger', 'tiles', '--out', out], { env: env() });
      expect(again.code).toBe(0);
      expect(again.out).toMatch(/Nothing new/);
      expect(files(out)).toEqual(before);

      await append(700, 1000);
      const inc = await runSvc(['ledger', 'tiles', '--out', out], { env: env() });
      expect(inc.code, inc.err).toBe(0);
      const after = files(out);
      const changed = [...after].filter(([f, t]) => before.get(f) !== t).map(([f]) => f);
      // The full tiles already there are untouched; the new and grown ones, and the checkpoint, are written.
      expect(changed.sort()).toEqual(
        ['checkpoint', 'tile/0/002', 'tile/0/003.p/232', 'tile/1/000.p/3', 'tile/entries/002', 'tile/entries/003.p/232'].sort(),
      );
      if (runs('go')) expect(await goCheck(web.url, ed, 700)).toMatchObject({ size: 1000, entries: 1000, older: 700 });
    } finally {
      web.stop();
    }
  }, 120_000);

  it('refuses a folder whose checkpoint the log contradicts (a fork or a rollback): exit 3, nothing written', async () => {
    const good = join(work, 'good');
    expect((await runSvc(['ledger', 'tiles', '--out', good], { env: env() })).code).toBe(0);
    const forked = join(work, 'forked');
    cpSync(good, forked, { recursive: true });
    const lines = readFileSync(join(forked, 'checkpoint'), 'utf8').split('\n');
    lines[2] = Buffer.alloc(32, 7).toString('base64');
    writeFileSync(join(forked, 'checkpoint'), lines.join('\n'));
    const before = files(forked);
    const r = await runSvc(['ledger', 'tiles', '--out', forked], { env: env() });
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/a fork/);
    expect(files(forked)).toEqual(before);

    const ahead = join(work, 'ahead');
    cpSync(good, ahead, { recursive: true });
    const a = readFileSync(join(ahead, 'checkpoint'), 'utf8').split('\n');
    a[1] = String(Number(a[1]) + 10);
    writeFileSync(join(ahead, 'checkpoint'), a.join('\n'));
    const r2 = await runSvc(['ledger', 'tiles', '--out', ahead], { env: env() });
    expect(r2.code).toBe(3);
    expect(r2.err).toMatch(/rollback/);

    const junk = join(work, 'junk');
    cpSync(good, junk, { recursive: true });
    writeFileSync(join(junk, 'checkpoint'), 'not a note');
    expect((await runSvc(['ledger', 'tiles', '--out', junk], { env: env() })).code).toBe(2);
    expect((await runSvc(['ledger', 'tiles'], { env: env() })).code).toBe(2);
  }, 120_000);
});

describe('svc ledger monitor', () => {
  it('passes an honest log, served or static; remembers what it saw', async () => {
    const state = join(work, 'mon.json');
    const vk = vkeys[0]!;
    const served = `${s.url}/api/transparency/tlog/`;
    const r1 = await runSvc(['ledger', 'monitor', '--tiles', served, '--vkey', vk, '--state', state]);
    expect(r1.code, r1.err).toBe(0);
    expect(r1.out).toMatch(/MONITOR OK: .* size \d+ \(first run/);
    const size = JSON.parse(readFileSync(state, 'utf8')).size;
    await append(size, size + 300);
    const r2 = await runSvc(['ledger', 'monitor', '--tiles', served, '--vkey', vk, '--state', state]);
    expect(r2.code, r2.err).toBe(0);
    expect(r2.out).toContain(`size ${size + 300}, consistent with size ${size}; 300 new entries`);
  }, 120_000);

  it('exit 3 on a fork, a rollback, a changed tile or entry, and a checkpoint the key did not sign', async () => {
    const mirror = join(work, 'mon-mirror');
    expect((await runSvc(['ledger', 'tiles', '--out', mirror], { env: env() })).code).toBe(0);
    const vk = vkeys[1]!; // the ML-DSA-87 line: any log key will do
    const state = join(work, 'mon2.json');
    expect((await runSvc(['ledger', 'monitor', '--tiles', mirror, '--vkey', vk, '--state', state])).code).toBe(0);
    const seen = JSON.parse(readFileSync(state, 'utf8'));

    const cases: [string, (dir: string, st: string) => void][] = [
      [
        'a fork (state holds another root at that size)',
        (_d, st) => writeFileSync(st, JSON.stringify({ ...seen, root: Buffer.alloc(32, 1).toString('base64') })),
      ],
      ['a rollback (state saw more leaves)', (_d, st) => writeFileSync(st, JSON.stringify({ ...seen, size: seen.size + 5 }))],
      [
        'a changed hash tile',
        (d) => {
          const f = join(d, 'tile/0/001');
          const b = readFileSync(f);
          b[5]! ^= 1;
          writeFileSync(f, b);
        },
      ],
      [
        'a changed entry',
        (d) => {
          const f = join(d, 'tile/entries/000');
          const b = readFileSync(f);
          b[40]! ^= 1;
          writeFileSync(f, b);
        },
      ],
      [
        'a checkpoint signed by no known key',
        (d) => {
          const f = join(d, 'checkpoint');
          const lines = readFileSync(f, 'utf8').split('\n');
          writeFileSync(f, lines.map((l) => (l.startsWith('\u2014') ? '\u2014 other.example/k AAAAAAA=' : l)).join('\n'));
        },
      ],
    ];
    for (const [what, damage] of cases) {
      const d = join(work, `m-${what.length}-${Math.random().toString(36).slice(2)}`);
      cpSync(mirror, d, { recursive: true });
      const st = `${d}.state.json`;
      writeFileSync(st, JSON.stringify({ ...seen, size: 0, root: Buffer.from(sha256(new Uint8Array())).toString('base64') }));
      damage(d, st);
      const r = await runSvc(['ledger', 'monitor', '--tiles', d, '--vkey', vk, '--state', st]);
      expect(r.code, `${what}: ${r.out} ${r.err}`).toBe(3);
    }
    const bad = await runSvc(['ledger', 'monitor', '--tiles', mirror, '--vkey', 'not+a+vkey', '--state', state]);
    expect(bad.code).toBe(2);
  }, 120_000);
});

describe('svc issue --logged (no witness policy)', () => {
  it("embeds a tlog-proof against the log's own checkpoint: the path checks, the log is judged by who holds its keys", async () => {
    const r = await runSvc(['issue', '--answer', 'logged without witnesses', '--logged'], { env: env() });
    expect(r.code, r.err).toBe(0);
    const bundle = JSON.parse(r.out);
    const keys = vkeys.map(parseVkey);
    const v = await verifyBundle(bundle, { logPolicy: logPolicy(`log ${vkeys[0]}\nquorum none\n`) });
    if (v.kind !== 'svc-proof') throw new Error(`a proof verdict, not ${v.kind}`);
    expect(v.verdict.log).toMatchObject({ ok: true, origin: keys[0]!.name, logRecognized: true, witnesses: 0, quorumMet: true });
    const tampered = { ...bundle, tlogProof: bundle.tlogProof.replace(/index (\d+)/, (_m: string, n: string) => `index ${Number(n) + 1}`) };
    expect((await verifyBundle(tampered)).verdict.overallOk).toBe(false);
    const off = await runSvc(['issue', '--answer', 'x', '--logged'], { env: { ...env(), SVC_LEDGER: 'off' } });
    expect(off.code).toBe(2);
  }, 60_000);
});

describe('svc ledger prove --tlog-proof', () => {
  it('prints a tlog-proof that verifies offline for the answer; --answer-sha256 and --leaf give the same', async () => {
    const target = 'cli leaf 123';
    const base = ['ledger', 'prove', '--url', s.url, '--tlog-proof'];
    const byAnswer = await runSvc([...base, '--answer', target]);
    expect(byAnswer.code, byAnswer.err).toBe(0);
    const data = sha256(utf8(target));
    const keys = vkeys.map(parseVkey);
    const v = verifyTlogProof(byAnswer.out, leafHash(data), { origin: keys[0]!.name, logKeys: keys });
    expect(v.index).toBe(123);
    expect(v.log).toHaveLength(3);
    expect(byAnswer.err).toMatch(/not pinned/);
    const bySha = await runSvc([...base, '--answer-sha256', toHex(data), ...vkeys.flatMap((k) => ['--vkey', k])]);
    expect(bySha.out).toBe(byAnswer.out);
    expect(bySha.err).not.toMatch(/not pinned/);
    const byLeaf = await runSvc([...base, '--leaf', toHex(leafHash(data))]);
    expect(byLeaf.out).toBe(byAnswer.out);
    expect(parseTlogProof(byLeaf.out).index).toBe(123);
  }, 60_000);

  it('exit 1 for an answer not in the log or under a stranger key; 2 for malformed arguments', async () => {
    const base = ['ledger', 'prove', '--url', s.url, '--tlog-proof'];
    expect((await runSvc([...base, '--answer', 'never logged'])).code).toBe(1);
    const stranger = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
    expect((await runSvc([...base, '--answer', 'cli leaf 1', '--vkey', stranger])).code).toBe(1);
    expect((await runSvc([...base, '--answer-sha256', 'zz'])).code).toBe(2);
    expect((await runSvc([...base, '--answer', 'a', '--leaf', '00'.repeat(32)])).code).toBe(2);
    expect(existsSync(join(work, 'nothing'))).toBe(false);
  }, 60_000);
});
