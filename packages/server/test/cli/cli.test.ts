// svc as a person runs it: exit codes, summaries, key pinning, ledger client and monitor. The
// commands run in this process (support/svc-cli.ts); the binary's own exit codes, and a terminal,
// are tried on the built binary in a process of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyBundle } from '@svc/core';
import { issueProof, signTreeHead } from '@svc/core/issue';
import { summarise } from '../../src/cli/verify.js';
import { testKeys } from '@svc/core/testing';
import { baseUrl, SqliteStore } from '../../src/internal.js';
import { boot, call, type Booted } from '../support/harness.js';
import { issueEach } from '../support/issue-each.js';
import { CLI, runSvc, runSvcProcess } from '../support/svc-cli.js';

const K = testKeys('cli-tests');
let s: Booted;
let work: string;

const svc = (args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}) =>
  runSvc(args, { ...opts, env: { SVC_DATA_DIR: s.dir, ...opts.env } });

beforeAll(async () => {
  s = await boot({ rate: { verify: 0, read: 0, modelKeys: 0, tiles: 0 } });
  work = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  writeFileSync(join(work, 'keys.json'), JSON.stringify((await call(s.url, '/api/provenance/pubkey')).body));
}, 60_000);
afterAll(async () => s?.stop());

describe('svc --help', () => {
  it('lists every command, and each command has its own help', async () => {
    const r = await svc(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['serve', 'keygen', 'issue', 'verify', 'record', 'ledger']) {
      expect(r.out).toMatch(new RegExp(`^  ${c} `, 'm'));
      const h = await svc([c, '--help']);
      expect(h.code, c).toBe(0);
      expect(h.out).toContain(`svc ${c}`);
    }
    const bad = await svc(['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown command/);
  });
});

describe('svc issue / verify / record', () => {
  it('issue prints a bundle that verify accepts with pinned keys (exit 0, origin recognised)', async () => {
    const i = await svc(['issue', '--answer', 'Berlin is the capital of Germany.', '--prompt', 'Capital of Germany?']);
    expect(i.code).toBe(0);
    const file = join(work, 'proof.json');
    writeFileSync(file, i.out);
    const v = await svc(['verify', file, '--keys', join(work, 'keys.json')]);
    expect(v.code).toBe(0);
    expect(v.out).toMatch(/Integrity: PASS/);
    expect(v.out).toMatch(/Origin: RECOGNISED/);
    expect(v.out).toMatch(/question: attested \(entire-input\)/);
    expect(v.out).toMatch(/never that the content is accurate/);
    const unpinned = await svc(['verify', file]);
    expect(unpinned.code).toBe(0);
    expect(unpinned.out).toMatch(/Origin: not checked/);
    const url = await svc(['verify', file, '--keys-url', s.url, '--json']);
    expect(url.code).toBe(0);
    expect(JSON.parse(url.out).signerRecognized).toBe(true);
  });

  it('the text output names a message-form answer, its tool calls and the disclosed request (issue 52)', async () => {
    const cases = JSON.parse(readFileSync(fileURLToPath(new URL('../../../../test-vectors/proof.json', import.meta.url)), 'utf8')).cases;
    const pick = (d: string) => cases.find((c: { description: string }) => c.description.startsWith(d));
    const good = pick('message form with a tool call and a disclosed request');
    const out = summarise(await verifyBundle(good.input, { trustedKeys: good.trustedKeys }), 1);
    expect(out).toMatch(/Integrity: PASS/);
    expect(out).toContain('answer form: message, finish_reason tool_calls, tool calls: get_weather({"city":"Paris"})');
    expect(out).toContain('request beyond the messages: disclosed and signed (tools)');
    expect(out).toContain('question: attested (current-message)');
    const swapped = pick('message form: the disclosed request swapped');
    const bad = summarise(await verifyBundle(swapped.input, { trustedKeys: swapped.trustedKeys }), 1);
    expect(bad).toMatch(/Integrity: FAIL/);
    expect(bad).toContain('request beyond the messages: FAILED');
    expect(bad).toContain('question: NOT attested');
  });

  it('exit 1 when it does not verify, 2 when unreadable or not a bundle, stdin with -', async () => {
    const b = issueProof({ answer: 'x', model: 'm', ts: 1 }, { receipt: K.answer });
    const bad = await svc(['verify', '-'], { input: JSON.stringify({ ...b, answer: 'y' }) });
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/Integrity: FAIL/);
    const json = await svc(['verify', '-', '--json'], { input: JSON.stringify({ ...b, answer: 'y' }) });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out).verdict.overallOk).toBe(false);
    const missing = await svc(['verify', join(work, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.err.trim().split('\n')).toHaveLength(1);
    const garbage = await svc(['verify', '-'], { input: 'not json' });
    expect(garbage.code).toBe(2);
    expect(garbage.err).toMatch(/invalid_json/);
    const wrapper = await svc(['verify', '-'], { input: JSON.stringify({ signed_tree_head: {} }) });
    expect(wrapper.code).toBe(2);
    const badKeys = await svc(['verify', '-', '--keys', join(work, 'proof.json')], { input: JSON.stringify(b) });
    expect(badKeys.code).toBe(2);
  });

  it('exit codes a CI gate can trust (#31): 4 for a signer the pinned keys do not recognise, 2 for no command or a data folder with no keyring', async () => {
    // A genuine bundle, signed by someone else's key.
    const foreign = JSON.stringify(issueProof({ answer: 'not ours', model: 'm', ts: 1 }, { receipt: K.answer }));
    for (const pin of [
      ['--keys', join(work, 'keys.json')],
      ['--keys-url', s.url],
    ]) {
      const v = await svc(['verify', '-', ...pin], { input: foreign });
      expect(v.code, pin[0]).toBe(4);
      expect(v.out).toMatch(/Integrity: PASS/);
      expect(v.out).toMatch(/Origin: NOT recognised/);
      expect((await svc(['verify', '-', ...pin, '--allow-unpinned'], { input: foreign })).code).toBe(0);
      expect((await svc(['record', '-', ...pin], { input: foreign })).code).toBe(4);
      expect((await svc(['record', '-', ...pin, '--allow-unpinned'], { input: foreign })).code).toBe(0);
    }
    // With no keys pinned nothing is claimed about origin, and the exit says integrity only.
    expect((await svc(['verify', '-'], { input: foreign })).code).toBe(0);
    const none = await svc([]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/a command is needed/);
    const typo = join(work, 'no-such-data-dir');
    const issued = await svc(['issue', '--answer', 'x', '--data-dir', typo]);
    expect(issued.code).toBe(2);
    expect(issued.err).toMatch(/no keyring in .*no-such-data-dir/);
    expect(existsSync(typo)).toBe(false);
    const tiles = await svc(['ledger', 'tiles', '--out', join(work, 'm'), '--data-dir', typo]);
    expect(tiles.code).toBe(2);
    expect(existsSync(typo)).toBe(false);
  });

  it('the built binary exits with those codes as a shell sees them, its output whole', async () => {
    const bin = (args: string[], input?: string) =>
      runSvcProcess(args, { env: { SVC_DATA_DIR: s.dir }, ...(input === undefined ? {} : { input }) });
    const version = await bin(['--version']);
    expect([version.code, version.out.trim()]).toEqual([0, JSON.parse(readFileSync(join(CLI, '../../package.json'), 'utf8')).version]);
    const foreign = JSON.stringify(issueProof({ answer: 'not ours', model: 'm', ts: 1 }, { receipt: K.answer }));
    const four = await bin(['verify', '-', '--keys', join(work, 'keys.json')], foreign);
    expect(four.code).toBe(4);
    expect(four.out).toMatch(/Origin: NOT recognised/);
    const changed = await bin(['verify', '-', '--allow-unpinned'], JSON.stringify({ ...JSON.parse(foreign), answer: 'changed' }));
    expect(changed.code).toBe(1);
    const none = await bin([]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^svc: a command is needed\n/);
  });

  it('JSON it prints shows format characters as escapes: never reordered or hidden on a terminal, the same strings when parsed (#30 row 10)', async () => {
    const answer = 'Total: \u202E1234\u202C EUR, zero\u200Bwidth';
    const i = await svc(['issue', '--answer', answer, '--prompt', 'q']);
    expect(i.code, i.err).toBe(0);
    expect(i.out).not.toMatch(/\p{Cf}/u);
    expect(i.out).toContain('\\u202e1234\\u202c');
    expect(JSON.parse(i.out).answer).toBe(answer);
    const r = await svc(['record', '-', '--keys', join(work, 'keys.json')], { input: i.out });
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/\p{Cf}/u);
    expect(JSON.parse(r.out).proof.answer).toBe(answer);
    const v = await svc(['verify', '-', '--json', '--keys', join(work, 'keys.json')], { input: i.out });
    expect(v.code).toBe(0);
    expect(v.out).not.toMatch(/\p{Cf}/u);
  });

  it('record prints an AI Provenance Record offline', async () => {
    const file = join(work, 'proof.json');
    const r = await svc(['record', file, '--org', 'Example Org', '--keys', join(work, 'keys.json')]);
    expect(r.code).toBe(0);
    const rec = JSON.parse(r.out);
    expect(rec.schema).toBe('svc-ai-provenance-record');
    expect(rec.subject).toEqual({ organisation: 'Example Org' });
    expect(rec.attested.signer_recognized).toBe(true);
    const back = await svc(['verify', '-', '--keys', join(work, 'keys.json')], { input: r.out });
    expect(back.code).toBe(0);
    expect(back.out).toMatch(/Record: summary recomputed/);
    const sth = signTreeHead({ log: 'l', tree_size: 0, root_hash: '00'.repeat(32), timestamp: 0 }, K.sth);
    expect((await svc(['record', '-'], { input: JSON.stringify(sth) })).code).toBe(2);
  });
});

describe('svc ledger', () => {
  it('prove verifies the inclusion path against the signed root', async () => {
    await svc(['issue', '--answer', 'ledger answer']);
    const p = await svc(['ledger', 'prove', '--url', s.url, '--answer', 'ledger answer']);
    expect(p.code).toBe(0);
    expect(p.out).toMatch(/Included: leaf \d+ of \d+, path verified against the signed root/);
    // Trust never comes from the URL being checked: without --keys it says the key is not pinned.
    expect(p.out).toMatch(/taken from the server being checked, not pinned/);
    expect(p.out).not.toMatch(/key recognised/);
    const pinned = await svc(['ledger', 'prove', '--url', s.url, '--answer', 'ledger answer', '--keys', join(work, 'keys.json')]);
    expect(pinned.code).toBe(0);
    expect(pinned.out).toMatch(/recognised by the pinned keys/);
    const strangers = join(work, 'stranger-keys.json');
    writeFileSync(strangers, JSON.stringify({ keys: K.trustedKeys }));
    const other = await svc(['ledger', 'prove', '--url', s.url, '--answer', 'ledger answer', '--keys', strangers]);
    expect(other.code, other.out + other.err).toBe(4);
    expect(other.out).toMatch(/NOT one of the pinned keys/);
    const n = await svc(['ledger', 'prove', '--url', s.url, '--answer', 'never issued']);
    expect(n.code).toBe(1);
    expect(n.out).toMatch(/Not found/);
  });

  it('audit records state, follows growth, and exits 3 on a rollback', async () => {
    const state = join(work, 'audit.json');
    const first = await svc(['ledger', 'audit', '--url', s.url, '--state', state]);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/first run/);
    await svc(['issue', '--answer', 'grow 1']);
    await svc(['issue', '--answer', 'grow 2']);
    const second = await svc(['ledger', 'audit', '--url', s.url, '--state', state, '--keys', join(work, 'keys.json')]);
    expect(second.code, second.out + second.err).toBe(0);
    expect(second.out).toMatch(/consistent with size/);
    const store = new SqliteStore(`${s.dir}/ledger.sqlite`);
    const size = await store.size();
    store.db.prepare('DELETE FROM leaves WHERE idx >= ?').run(size - 1);
    await store.close();
    const third = await svc(['ledger', 'audit', '--url', s.url, '--state', state]);
    expect(third.code).toBe(3);
    expect(third.out).toMatch(/AUDIT FAILED/);
    expect(third.out).toMatch(/rollback/);
    const unreachable = await svc(['ledger', 'audit', '--url', 'http://127.0.0.1:9']);
    expect(unreachable.code).toBe(2);
  });
});

describe('svc on a terminal and on a broken network', () => {
  it('names the cause of a network failure: refused, DNS', async () => {
    const free = await new Promise<number>((resolve) => {
      const srv = createNetServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as { port: number }).port;
        srv.close(() => resolve(port));
      });
    });
    const refused = await svc(['ledger', 'audit', '--url', `http://127.0.0.1:${free}`]);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/connection refused/);
    const dns = await svc(['ledger', 'audit', '--url', 'http://no-such-host.invalid']);
    expect(dns.code).toBe(2);
    expect(dns.err).toMatch(/host name not found/);
  });

  it.skipIf(!existsSync('/usr/bin/script'))('on a terminal, the progress line is cleared before the result is printed', async () => {
    const t = await boot({ rate: { verify: 0, read: 0, modelKeys: 0, tiles: 0 } });
    try {
      const state = join(work, 'tty-audit.json');
      expect((await svc(['ledger', 'audit', '--url', t.url, '--state', state])).code).toBe(0);
      // The log grows beside the server (the library; the command under test is the audit).
      await issueEach(t.dir, ['tty 1', 'tty 2', 'tty 3']);
      // script(1) gives the command a pseudo-terminal, so the catch-up draws its progress line.
      const cmd = `${process.execPath} ${CLI} ledger audit --url ${t.url} --state ${state}`;
      const r = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
        const c = spawn('script', ['-qec', cmd, '/dev/null']);
        let stdout = '';
        c.stdout.on('data', (d) => (stdout += d));
        c.on('close', (status) => resolve({ status, stdout }));
      });
      expect(r.status, r.stdout).toBe(0);
      expect(r.stdout).toMatch(/checking consistency/);
      const result = r.stdout.indexOf('AUDIT OK');
      expect(result).toBeGreaterThan(0);
      // What precedes the result on its line is a cleared line, never progress text.
      const lineStart = Math.max(r.stdout.lastIndexOf('\n', result), r.stdout.lastIndexOf('\r', result - 4)) + 1;
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's erase-line sequence is what is looked for.
      expect(r.stdout.slice(lineStart, result).replace(/\r?\x1b\[K/g, '')).toBe('');
      // svc issue has no whole-log check to wait for (issue 56): on a terminal too, the bundle is
      // all it prints, with no progress line before it.
      const issued = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
        const c = spawn('script', ['-qec', `${process.execPath} ${CLI} issue --answer 'tty 4'`, '/dev/null'], {
          env: { ...process.env, SVC_DATA_DIR: t.dir },
        });
        let stdout = '';
        c.stdout.on('data', (d) => (stdout += d));
        c.on('close', (status) => resolve({ status, stdout }));
      });
      expect(issued.status, issued.stdout).toBe(0);
      expect(issued.stdout).not.toMatch(/checking/);
      const bundleAt = issued.stdout.indexOf('{');
      const before = issued.stdout.slice(
        Math.max(issued.stdout.lastIndexOf('\n', bundleAt), issued.stdout.lastIndexOf('\r', bundleAt - 4)) + 1,
        bundleAt,
      );
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's erase-line sequence is what is looked for.
      expect(before.replace(/\r?\x1b\[K/g, '')).toBe('');
      // Not on a pipe: standard error stays free of progress text.
      const piped = await svc(['issue', '--answer', 'piped'], { env: { SVC_DATA_DIR: t.dir } });
      expect(piped.code).toBe(0);
      expect(piped.err).not.toMatch(/checking/);
    } finally {
      await t.stop();
    }
  });
});

describe('the first hour (issue 23)', () => {
  it('record says where trust comes from: no keys pinned is said on standard error, pinned keys are named', async () => {
    // Issued without the ledger: an earlier test in this file leaves the server's log forked.
    const proof = JSON.parse((await svc(['issue', '--answer', 'Rome is the capital of Italy.'], { env: { SVC_LEDGER: 'off' } })).out);
    const file = join(work, 'first-hour-proof.json');
    writeFileSync(file, JSON.stringify(proof));
    const bare = await svc(['record', file, '--org', 'Example Org']);
    expect(bare.code).toBe(0);
    expect(JSON.parse(bare.out).attested.signer_recognized).toBe(false);
    expect(bare.err).toMatch(/origin not checked: no keys pinned.*--keys-url/);
    const pinned = await svc(['record', file, '--keys', join(work, 'keys.json')]);
    expect(JSON.parse(pinned.out).attested.signer_recognized).toBe(true);
    expect(pinned.err).toMatch(/origin checked against \d+ pinned keys from .*keys\.json/);
  });

  it('URL options take the base or an endpoint URL', async () => {
    const proof = JSON.parse((await svc(['issue', '--answer', 'Madrid is the capital of Spain.'], { env: { SVC_LEDGER: 'off' } })).out);
    const file = join(work, 'first-hour-madrid.json');
    writeFileSync(file, JSON.stringify(proof));
    for (const u of [s.url, `${s.url}/`, `${s.url}/api/provenance/pubkey`, `${s.url}/api/transparency/ledger?x=1`]) {
      const v = await svc(['verify', file, '--keys-url', u]);
      expect(v.code, u).toBe(0);
      expect(v.out).toContain('RECOGNISED');
      // --keys-url pins the service's model-plane keys too: its own attestation is not a stranger's.
      expect(v.out).toMatch(/model-plane attestation: ML-DSA-87 ok/);
      expect(v.out).not.toMatch(/not pinned here/);
    }
    for (const u of [
      'http://h:1',
      'http://h:1/',
      'http://h:1/api/transparency/ledger',
      'http://h:1/api/transparency/ledger/history?verifiable=1',
    ])
      expect(baseUrl(u), u).toBe('http://h:1');
    expect(baseUrl('http://h:1/svc/api/provenance/pubkey')).toBe('http://h:1/svc');
  });

  it('errors name the flag, the file and the cause', async () => {
    const missing = await svc(['issue', '--answer-file', join(work, 'missing.txt')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/cannot read --answer-file .*missing\.txt: no such file \(ENOENT\)/);
    const bad = join(work, 'bad-state.json');
    writeFileSync(bad, '{"tree_size": 3');
    const a = await svc(['ledger', 'audit', '--url', s.url, '--state', bad]);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/--state .*bad-state\.json is not a saved audit state: not valid JSON/);
    writeFileSync(bad, '{"tree_size": "3"}');
    expect((await svc(['ledger', 'audit', '--url', s.url, '--state', bad])).err).toMatch(/needs tree_size and root_hash/);
    const foo = await svc(['ledger', 'foo']);
    expect(foo.code).toBe(2);
    expect(foo.err).toMatch(/unknown subcommand ledger foo/);
    expect(foo.err).not.toMatch(/--url is required/);
  });
});

describe('settings', () => {
  it("`svc serve --help` and the server guide's configuration table list the same settings", async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(fileURLToPath(new URL('../../../../docs/server.md', import.meta.url)), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5));
    // Every variable named in the first cell of each row.
    const inReadme = [...table.matchAll(/^\| ([^|]+) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([A-Z_0-9]+)`/g)].map((x) => x[1]!));
    const help = (await svc(['serve', '--help'])).out;
    const inHelp = [...help.matchAll(/\b(PORT|HOST|SVC_[A-Z_0-9]+)\b/g)].map((m) => m[1]!);
    expect(new Set(inReadme).size).toBeGreaterThan(15);
    expect([...new Set(inHelp)].sort()).toEqual([...new Set(inReadme)].sort());
  });

  it('every file the runnable commands of the README and the guides write into the repository is ignored by git (and so by Biome)', async () => {
    const { readFileSync } = await import('node:fs');
    const { spawnSync } = await import('node:child_process');
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const { runnableLines, RUNNABLE_FILES } = await import(join(root, 'tools/scripts/first-hour.mjs'));
    const block = (RUNNABLE_FILES as string[]).flatMap((f) => runnableLines(readFileSync(join(root, f), 'utf8')) as string[]).join('\n');
    const outputs = [...block.matchAll(/(?:> |--out |--state |--data-dir )([\w./-]+)/g)].map((m) => m[1]!);
    expect(outputs).toEqual(
      expect.arrayContaining([
        'proof.json',
        'record.json',
        'audit.json',
        'answer.tlog-proof',
        'mirror/',
        'monitor.json',
        'witness-data',
        'issue-token.txt',
        'bundles.jsonl',
      ]),
    );
    for (const f of outputs) expect(spawnSync('git', ['check-ignore', '-q', f], { cwd: root }).status, f).toBe(0);
  });
});
