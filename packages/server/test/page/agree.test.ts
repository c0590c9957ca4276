// One verdict wherever a document is checked (#44): `POST /api/v1/verify`, `svc verify --keys-url`
// and the verifier page the same server serves judge the same document with the same keys (the
// server's published ones) alike: refused, failing, passing with its signer pinned or not. The
// documents: the fuzz corpus of every kind with mutations of each (fixed seed), the test vectors,
// and answers this server signed, with mutations.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { namesFor } from '@svc/core';
import { fuzzCorpus, mutate, prng } from '@svc/core/arbitraries';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@svc/tools/chromium';
import { runs } from '@svc/tools/system';
import { Issuer, Keyring } from '../../src/internal.js';
import { boot, type Booted } from '../support/harness.js';
import { verifyCommand } from '../../src/cli/verify.js';
import { CliError } from '../../src/cli/common.js';

type Verdict = 'refused' | 'fails' | 'passes, signer not pinned' | 'passes, signer pinned';
const vectors = fileURLToPath(new URL('../../../../test-vectors/', import.meta.url));

let s: Booted;
let browser: Browser;
let dir: string;
beforeAll(async () => {
  if (!runs('chromium')) return;
  // Rate limits off: a hundred verifications and key fetches a minute is this test, not an abuser.
  s = await boot({}, { SVC_RATE_VERIFY: '0', SVC_RATE_READ: '0', SVC_RATE_MODEL_KEYS: '0', SVC_RATE_TILES: '0' });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  dir = mkdtempSync(join(tmpdir(), 'svc-agree-'));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The documents, as the text each verifier is given. */
async function corpus(): Promise<{ name: string; text: string }[]> {
  const docs: { name: string; text: string }[] = [];
  const r = prng(44);
  for (const { kind, doc } of fuzzCorpus(44, undefined, 'svc', 1) as unknown as { kind: string; doc: Record<string, unknown> }[]) {
    docs.push({ name: `${kind} (corpus)`, text: JSON.stringify(doc) });
    for (let i = 0; i < 2; i++) {
      const m = mutate(doc, r, kind);
      if (typeof m.input === 'string' || (typeof m.input === 'object' && !(m.input instanceof Uint8Array)))
        docs.push({ name: `${kind}: ${m.description}`, text: typeof m.input === 'string' ? m.input : JSON.stringify(m.input) });
    }
  }
  for (const [file, n] of [
    ['proof.json', 6],
    ['errors.json', 3],
    ['record.json', 2],
  ] as const) {
    const cases = JSON.parse(readFileSync(join(vectors, file), 'utf8')).cases as {
      description: string;
      input?: unknown;
      inputText?: string;
    }[];
    const step = Math.max(1, Math.floor(cases.length / n));
    for (let i = 0; i < cases.length; i += step) {
      const c = cases[i]!;
      const text = c.inputText ?? (typeof c.input === 'string' ? c.input : JSON.stringify(c.input));
      if (typeof text === 'string') docs.push({ name: `${file}: ${c.description}`, text });
    }
  }
  const own = await new Issuer(Keyring.load(`${s.dir}/keys`).ring, namesFor('svc'), null).issue({
    answer: 'Bern.',
    prompt: 'Capital of Switzerland?',
  });
  docs.push({ name: "this server's answer", text: JSON.stringify(own) });
  for (let i = 0; i < 3; i++) {
    const m = mutate(own as unknown as Record<string, unknown>, r, 'proof');
    if (typeof m.input === 'object' && !(m.input instanceof Uint8Array))
      docs.push({ name: `this server's answer: ${m.description}`, text: JSON.stringify(m.input) });
  }
  return docs;
}

const judged = (ok: boolean, pinned: boolean): Verdict => (!ok ? 'fails' : pinned ? 'passes, signer pinned' : 'passes, signer not pinned');

async function api(text: string): Promise<Verdict> {
  const res = await fetch(`${s.url}/api/v1/verify`, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
  if (res.status !== 200) return 'refused';
  const r = await res.json();
  return judged(r.verdict.overallOk, r.signerRecognized);
}

/**
 * `svc verify FILE --keys-url URL` as the CLI runs it (its command, its exit code), in this
 * process: a process per document was most of this file's time, and exit codes of the binary
 * itself are cli.test's.
 */
async function cli(file: string): Promise<Verdict> {
  let code: number;
  try {
    code = await verifyCommand(file, { 'keys-url': s.url }, () => {});
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    code = e.exitCode;
  }
  return (
    ({ 0: 'passes, signer pinned', 1: 'fails', 2: 'refused', 4: 'passes, signer not pinned' } as Record<number, Verdict>)[code] ??
    (`exit ${code}` as Verdict)
  );
}

describe.runIf(runs('chromium'))('the API, the CLI and the page agree', () => {
  it("on every document of the corpus, the vectors and this server's answers, judged with the keys the server publishes", async () => {
    const docs = await corpus();
    const started = performance.now();
    expect(docs.length).toBeGreaterThanOrEqual(30);
    const page = await browser.newPage();
    await page.goto(`${s.url}/`);
    await page.waitForFunction(() => (window as unknown as { __verifierReady?: boolean }).__verifierReady === true);
    const seen = new Set<Verdict>();
    try {
      for (const [i, d] of docs.entries()) {
        const file = join(dir, `${i}.json`);
        writeFileSync(file, d.text);
        const [fromApi, fromCli] = await Promise.all([api(d.text), cli(file)]);
        await page.fill('#bundle', d.text);
        await page.click('#verify');
        await page.waitForSelector('#result #summary, #result.error');
        const fromPage: Verdict = await page.evaluate(() => {
          if (document.querySelector('#result.error')) return 'refused';
          const r = (
            window as unknown as { __lastVerdict: () => { response: { verdict: { overallOk: boolean }; signerRecognized: boolean } } }
          ).__lastVerdict().response;
          return !r.verdict.overallOk ? 'fails' : r.signerRecognized ? 'passes, signer pinned' : 'passes, signer not pinned';
        });
        expect({ doc: d.name, cli: fromCli, page: fromPage }).toEqual({ doc: d.name, cli: fromApi, page: fromApi });
        seen.add(fromApi);
      }
    } finally {
      await page.close();
    }
    console.log(`${docs.length} documents, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    // The corpus reaches every verdict, so agreement on each is tested.
    expect([...seen].sort()).toEqual(['fails', 'passes, signer not pinned', 'passes, signer pinned', 'refused']);
  }, 300_000);
});
