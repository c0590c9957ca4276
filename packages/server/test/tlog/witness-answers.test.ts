// What a policy witness may answer the log, and what the log then publishes (#30 rows 1 and 3): its
// valid line plus a failing line under its own key, its valid line 99 times, or a gigabyte. Only
// verified lines are published, each once; a published note is one every reader accepts and that
// meets the log's own policy; an answer past its cap is refused and costs that witness alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256, utf8 } from '@svc/core/primitives';
import { MemoryTree, treeRoot } from '@svc/core/merkle';
import {
  formatCheckpoint,
  logKeygen,
  logPolicy,
  MAX_NOTE_SIGNATURES,
  noteSigner,
  parseNote,
  parsePolicy,
  signNote,
  signatureLine,
  type NoteSigner,
} from '@svc/core/tlog';
import { Witnessing } from '../../src/tlog/witnessing.js';

const ORIGIN = 'example.com/witnessed-log';
const seed = (n: number) => sha256(utf8(`seed ${n}`));
const logSigner = noteSigner(ORIGIN, logKeygen('ed25519', seed(0)));
const witnesses: NoteSigner[] = [1, 2, 3].map((i) => noteSigner(`w${i}.example`, logKeygen('cosignature/v1', seed(i))));

function logNote(size: number): string {
  const t = new MemoryTree();
  for (let i = 0; i < size; i++) t.appendData(seed(100 + i));
  return signNote(formatCheckpoint({ origin: ORIGIN, size, root: treeRoot(t, size), extensions: [] }), [logSigner]);
}

const policyText = [
  `log ${logSigner.vkey}`,
  ...witnesses.map((w, i) => `witness w${i + 1} ${w.vkey} http://w${i + 1}.test`),
  'group g 2 w1 w2 w3',
  'quorum g',
].join('\n');

/** Each witness's answer to an add-checkpoint of `note`, by its index. */
type Answer = (note: string, i: number) => Response;
const cosign = (note: string, i: number) => signatureLine(witnesses[i]!.sign(parseNote(note).text, 1_700_000_000));

function witnessing(answer: Answer, logs: Array<[string, Record<string, unknown>]>, policy = policyText) {
  const note = logNote(5);
  const fake = (async (url: string | URL) => answer(note, Number(/w(\d)\.test/.exec(String(url))![1]) - 1)) as typeof fetch;
  const w = new Witnessing({ checkpoint: async () => note, consistency: async () => ({ proof: [] }) }, parsePolicy(policy), {
    log: (e, f) => void logs.push([e, f ?? {}]),
    timeoutMs: 5_000,
    fetch: fake,
  });
  return { w, note };
}

describe('what the log publishes from its witnesses answers', () => {
  it('a valid line plus a failing line under the same key: only the valid line is published, and the note meets the policy', async () => {
    const logs: Array<[string, Record<string, unknown>]> = [];
    const { w } = witnessing((note, i) => {
      const good = cosign(note, i);
      // The same key name and id, the right length, garbage bytes.
      const sig = witnesses[i]!.sign(parseNote(note).text, 1_700_000_000);
      const forged = signatureLine({ ...sig, signature: sig.signature.map((b, k) => (k > 12 ? b ^ 0x5a : b)) });
      return new Response(i === 0 ? good + forged : good);
    }, logs);
    await w.round();
    const published = w.publishedNote()!;
    expect(published).not.toBeNull();
    const sigs = parseNote(published).signatures;
    expect(sigs.filter((s) => s.name === 'w1.example')).toHaveLength(1);
    const checked = logPolicy(policyText).checkCheckpoint(parseNote(published), ORIGIN);
    expect(checked).toMatchObject({ signaturesOk: true, logRecognized: true, quorumMet: true });
    expect(logs.some(([e]) => e === 'witness_refused')).toBe(true);
  });

  it('a witness repeating its valid line 99 times: published once; the note stays within what readers accept', async () => {
    const { w } = witnessing((note, i) => new Response(cosign(note, i).repeat(i === 1 ? 99 : 1)), []);
    await w.round();
    const sigs = parseNote(w.publishedNote()!).signatures;
    expect(sigs.length).toBeLessThanOrEqual(MAX_NOTE_SIGNATURES);
    expect(sigs.filter((s) => s.name === 'w2.example')).toHaveLength(1);
    expect(sigs).toHaveLength(4); // the log's line and one per witness
  });

  it('a witness answering 200 with a gigabyte: refused past the cap, never held; the others still make the quorum', async () => {
    const logs: Array<[string, Record<string, unknown>]> = [];
    let sent = 0;
    const { w } = witnessing((note, i) => {
      if (i !== 2) return new Response(cosign(note, i));
      const chunk = new Uint8Array(64 * 1024).fill(0x41);
      const stream = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent >= 1 << 30) return c.close();
          sent += chunk.length;
          c.enqueue(chunk);
        },
      });
      return new Response(stream);
    }, logs);
    const heap = process.memoryUsage().heapUsed;
    await w.round();
    expect(sent).toBeLessThan(1024 * 1024);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(64 * 1024 * 1024);
    expect(logs.find(([e, f]) => e === 'witness_refused' && f.witness === 'w3')?.[1].reason).toMatch(/more than \d+ bytes/);
    const sigs = parseNote(w.publishedNote()!).signatures;
    expect(sigs.map((s) => s.name).sort()).toEqual([ORIGIN, 'w1.example', 'w2.example']);
  });

  it("a witness's second key listed without a URL: its line is published when it verifies, dropped when forged", async () => {
    const second = noteSigner('w1.example', logKeygen('subtree/v1', seed(11)));
    const policy = `${policyText}\nwitness w1b ${second.vkey}`;
    for (const forge of [false, true]) {
      const { w } = witnessing(
        (note, i) => {
          const extra = second.sign(parseNote(note).text, 1_700_000_000);
          const line = signatureLine(forge ? { ...extra, signature: extra.signature.map((b, k) => (k > 12 ? b ^ 1 : b)) } : extra);
          return new Response(i === 0 ? cosign(note, i) + line : cosign(note, i));
        },
        [],
        policy,
      );
      await w.round();
      const published = parseNote(w.publishedNote()!);
      expect(published.signatures.filter((x) => x.name === 'w1.example')).toHaveLength(forge ? 1 : 2);
      expect(logPolicy(policy).checkCheckpoint(published, ORIGIN)).toMatchObject({ signaturesOk: true, quorumMet: true });
    }
  });
});

describe('witness answers, fuzzed', () => {
  it('property: whatever the witnesses answer (extra, repeated, forged, foreign, oversized lines), a published note meets the policy, carries each line once, and stays within what readers accept', async () => {
    // Weighted toward good lines, so that many rounds reach the quorum and are judged.
    const line = fc.oneof({ arbitrary: fc.constant('good'), weight: 6 }, fc.constantFrom('forged', 'foreign', 'garbage', 'repeat', 'huge'));
    let publications = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(line, { maxLength: 6 }), { minLength: 3, maxLength: 3 }), async (plans) => {
        const { w } = witnessing((note, i) => {
          const text = parseNote(note).text;
          const sig = witnesses[i]!.sign(text, 1_700_000_000);
          const parts = plans[i]!.map((kind) => {
            if (kind === 'good') return signatureLine(sig);
            if (kind === 'repeat') return signatureLine(sig).repeat(40);
            if (kind === 'forged') return signatureLine({ ...sig, signature: sig.signature.map((b, k) => (k > 12 ? b ^ 0x33 : b)) });
            if (kind === 'foreign') return signatureLine(witnesses[(i + 1) % 3]!.sign(text, 1_700_000_000));
            if (kind === 'huge') return 'x'.repeat(20_000);
            return '\u2014 not a line\n';
          });
          return new Response(parts.join(''));
        }, []);
        await w.round();
        const published = w.publishedNote();
        if (published === null) return;
        publications++;
        const n = parseNote(published);
        expect(n.signatures.length).toBeLessThanOrEqual(MAX_NOTE_SIGNATURES);
        const keys = n.signatures.map((x) => `${x.name}/${x.id}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(logPolicy(policyText).checkCheckpoint(n, ORIGIN)).toMatchObject({
          signaturesOk: true,
          logRecognized: true,
          quorumMet: true,
        });
      }),
      { numRuns: 60 },
    );
    // The property is not vacuous: enough rounds met the quorum to be judged.
    expect(publications).toBeGreaterThan(10);
  });
});

describe('a witness policy naming a log it could never cosign (#30 row 6)', () => {
  it('an origin over 255 bytes is refused when the policy is read, with the reason; the witness does not start', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { runSvcProcess } = await import('../support/svc-cli.js');
    const dir = mkdtempSync(join(tmpdir(), 'svc-long-origin-'));
    const long = noteSigner(`example.com/${'x'.repeat(300)}`, logKeygen('ed25519', seed(50)));
    const policy = join(dir, 'policy.txt');
    writeFileSync(policy, `log ${long.vkey}\nlog ${logSigner.vkey}\nquorum none\n`);
    const r = await runSvcProcess(['witness', 'serve', '--policy', policy, '--data-dir', join(dir, 'w')], {
      env: { ...process.env, PORT: '0' },
    });
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/origin is over 255 bytes/);
  }, 30_000);
});

describe('a round that cannot read the log', () => {
  it('ends with a log line, never a rejection, and the next round asks again', async () => {
    const logs: Array<[string, Record<string, unknown>]> = [];
    const note = logNote(5);
    let asked = 0;
    let reads = 0;
    // Each witness says it holds size 3, so the next attempt needs a consistency proof, which fails.
    const fake = (async () => {
      asked++;
      return new Response('3\n', { status: 409, headers: { 'content-type': 'text/x.tlog.size' } });
    }) as unknown as typeof fetch;
    const w = new Witnessing(
      {
        checkpoint: async () => note,
        consistency: async () => {
          reads++;
          throw new Error('ledger store is closed');
        },
      },
      parsePolicy(policyText),
      { log: (e, f) => void logs.push([e, f ?? {}]), timeoutMs: 5_000, fetch: fake },
    );
    await expect(w.round()).resolves.toBeUndefined();
    expect(logs.find(([e]) => e === 'witnessing_round_failed')?.[1].error).toBe('ledger store is closed');
    expect(w.publishedNote()).toBeNull();
    expect(asked).toBeGreaterThan(0);
    const before = reads;
    await expect(w.round()).resolves.toBeUndefined();
    expect(reads).toBeGreaterThan(before);
  });
});
