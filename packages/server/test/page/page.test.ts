// The verifier page in headless Debian chromium (playwright, no browser download): valid, failing
// and malformed inputs, served by the server and opened as a local file, and no request leaves the
// page while it verifies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@svc/tools/chromium';
import { runs } from '@svc/tools/system';
import { fromBase64Url, toBase64Url } from '@svc/core/primitives';
import { issueProof } from '@svc/core/issue';
import { envelopeMaker } from '@svc/core/envelope';
import { testKeys } from '@svc/core/testing';
import { Issuer, Keyring } from '../../src/internal.js';
import { namesFor } from '@svc/core';
import { boot, type Booted } from '../support/harness.js';
import { runSvc } from '../support/svc-cli.js';

const CHROMIUM = CHROMIUM_PATH;
const PAGE_FILE = fileURLToPath(new URL('../../dist/page.html', import.meta.url));
let s: Booted;
let browser: Browser;

beforeAll(async () => {
  // Without Chromium outside CI the page's suites are skipped (tools/lib/system.mjs).
  if (!runs('chromium')) return;
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  s = await boot();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

async function verifyIn(page: Page, text: string): Promise<{ requests: string[] }> {
  await page.waitForFunction(() => window.__verifierReady === true);
  await page.fill('#bundle', text);
  const requests: string[] = [];
  const onReq = (r: { url(): string }) => requests.push(r.url());
  page.on('request', onReq);
  await page.click('#verify');
  await page.waitForSelector('#result #summary, #result.error', { timeout: 30_000 });
  page.off('request', onReq);
  return { requests };
}

/** A page on another origin that frames whatever `?frame=` names. */
async function framingPage(): Promise<{ url: string; close: () => Promise<void> }> {
  const srv = createServer((req, res) => {
    const src = new URL(req.url ?? '/', 'http://x').searchParams.get('frame') ?? '';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<iframe src="${src.replace(/"/g, '')}"></iframe>`);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://localhost:${(srv.address() as { port: number }).port}`,
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
}

describe.runIf(runs('chromium'))('verifier page', () => {
  it('served at GET /: a bundle of this server verifies and its origin is recognised, with no request', async () => {
    const bundle = await new Issuer(Keyring.load(`${s.dir}/keys`).ring, namesFor('svc'), null).issue({
      answer: 'Madrid.',
      prompt: 'Capital of Spain?',
    });
    const page = await browser.newPage();
    const res = await page.goto(`${s.url}/`);
    expect(res?.status()).toBe(200);
    const { requests } = await verifyIn(page, JSON.stringify(bundle));
    expect(requests).toEqual([]);
    expect(await page.textContent('#integrity')).toMatch(/Integrity: PASS/);
    expect(await page.textContent('#origin')).toMatch(/Origin: recognised/);
    expect(await page.textContent('#layers')).toMatch(/Question: attested \(entire-input\)/);
    expect(await page.textContent('#result')).toMatch(/never that the content is accurate/);
    await page.close();
  });

  it('is served under a hash-based Content-Security-Policy header that refuses any other script and any framing (#29 row 8)', async () => {
    const res = await fetch(`${s.url}/`);
    const html = await res.text();
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).toMatch(/default-src 'none'/);
    // Each inline script and style the page runs is allowed by its own hash, and by nothing broader.
    const inline = (tag: string) => [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]!);
    for (const [tag, directive] of [
      ['script', 'script-src'],
      ['style', 'style-src'],
    ] as const) {
      const allowed = new RegExp(`${directive} ([^;]*)`).exec(csp)![1]!.split(' ');
      const want = inline(tag).map((t) => `'sha256-${createHash('sha256').update(t, 'utf8').digest('base64')}'`);
      expect(want.length).toBeGreaterThan(0);
      expect(allowed.sort()).toEqual(want.sort());
    }
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // In the browser: the page's own script runs; a script injected into it does not.
    const outer = await framingPage();
    const page = await browser.newPage();
    try {
      await page.goto(`${s.url}/`);
      await page.waitForFunction(() => window.__verifierReady === true);
      await page.addScriptTag({ content: 'window.__injected = true;' }).catch(() => undefined);
      expect(await page.evaluate(() => window.__injected ?? false)).toBe(false);
      // A page of another origin that frames it gets nothing rendered from it: the frame is refused.
      const blocked = page.waitForEvent('console', (m) => /frame-ancestors/.test(m.text()));
      await page.goto(`${outer.url}/?frame=${encodeURIComponent(`${s.url}/`)}`);
      await blocked;
      expect(page.frames().some((f) => f.url().startsWith(s.url))).toBe(false);
    } finally {
      await page.close();
      await outer.close();
    }
  });

  it('a failing bundle shows FAIL layer by layer; malformed input shows a clear error', async () => {
    const K = testKeys('page');
    const b = issueProof({ answer: 'a', model: 'm', ts: 1 }, { receipt: K.answer });
    const page = await browser.newPage();
    await page.goto(`${s.url}/`);
    await verifyIn(page, JSON.stringify({ ...b, answer: 'b' }));
    expect(await page.textContent('#integrity')).toMatch(/Integrity: FAIL/);
    expect(await page.textContent('#layers')).toMatch(/Answer hash: does NOT match/);
    // Signed by a key nobody pinned, and tampered: origin is not established (never "recognised").
    expect(await page.textContent('#origin')).toMatch(/Origin: not established. The bundle does not verify/);
    await page.fill('#bundle', '{"not": "json"');
    await page.click('#verify');
    await page.waitForSelector('#result.error');
    expect(await page.textContent('#result')).toMatch(/Not verifiable: .*invalid_json/);
    await page.fill('#bundle', '{"kind": "something-else"}');
    await page.click('#verify');
    await page.waitForSelector('#result.error');
    expect(await page.textContent('#result')).toMatch(/unknown_kind/);
    await page.close();
  });

  it('a bundle with JWS and COSE envelopes shows each envelope and its signatures; a broken one shows why it fails (#33)', async () => {
    const K = testKeys('page');
    const b = issueProof(
      { answer: 'enveloped', model: 'm', ts: 1 },
      { receipt: K.answer, envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: new Uint8Array(32).fill(3) }) },
    );
    const page = await browser.newPage();
    await page.goto(`${s.url}/`);
    await verifyIn(page, JSON.stringify(b));
    expect(await page.textContent('#integrity')).toMatch(/Integrity: PASS/);
    const layers = (await page.textContent('#layers'))!;
    expect(layers).toMatch(/JWS envelope \(RFC 9964\): valid: ML-DSA-87 and Ed25519, over the same signed receipt/);
    expect(layers).toMatch(/COSE_Sign1 envelope 1 \(RFC 9964\): valid: ML-DSA-87/);
    expect(layers).toMatch(/COSE_Sign1 envelope 2 \(RFC 9964\): valid: Ed25519/);
    const broken = structuredClone(b) as any;
    broken.receipt.envelopes.jws.signatures[1].signature = broken.receipt.envelopes.jws.signatures[0].signature;
    await verifyIn(page, JSON.stringify(broken));
    expect(await page.textContent('#integrity')).toMatch(/Integrity: FAIL/);
    expect(await page.textContent('#layers')).toMatch(
      /JWS envelope \(RFC 9964\): INVALID \(bad_signature\): ML-DSA-87 valid, Ed25519 bad_signature/,
    );
    await page.close();
  });

  it('opened as a local file: verifies with no keys pinned (origin not checked), or with pasted keys', async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`file://${PAGE_FILE}`);
    const K = testKeys('page');
    const b = issueProof({ answer: 'local', model: 'm', ts: 1 }, { receipt: K.answer });
    await verifyIn(page, JSON.stringify(b));
    expect(await page.textContent('#integrity')).toMatch(/PASS/);
    expect(await page.textContent('#origin')).toMatch(/not checked/);
    await page.click('details summary');
    await page.fill('#keys', JSON.stringify({ keys: K.trustedKeys }));
    await page.click('#verify');
    await page.waitForFunction(
      () =>
        /recognised/.test(document.querySelector('#origin')?.textContent ?? '') &&
        !/NOT/.test(document.querySelector('#origin')?.textContent ?? ''),
    );
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    await page.close();
  });

  it('signed text shows its invisible and direction-changing characters as code points, never acting (#30 row 10)', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`file://${PAGE_FILE}`);
      const K = testKeys('page');
      // Drawn as it acts, U+202E...U+202C turns 1234 into 4321; U+200B hides between two words.
      const answer = 'Total: \u202E1234\u202C EUR, zero\u200Bwidth';
      const b = issueProof({ answer, prompt: 'Pay \u2066what\u2069?', model: 'm', ts: 1 }, { receipt: K.answer });
      await verifyIn(page, JSON.stringify(b));
      expect(await page.textContent('#integrity')).toMatch(/PASS/);
      const shown = await page.textContent('#answer-text');
      expect(shown).toBe('Total: ⟨U+202E⟩1234⟨U+202C⟩ EUR, zero⟨U+200B⟩width');
      expect(shown).not.toMatch(/\p{Cf}/u);
      expect(await page.textContent('#answer-hidden-chars')).toMatch(/3 invisible or direction-changing characters/);
      expect(await page.textContent('#question-text')).toBe('Pay ⟨U+2066⟩what⟨U+2069⟩?');
      // Plain text draws as before, with no notice.
      await verifyIn(page, JSON.stringify(issueProof({ answer: 'plain', model: 'm', ts: 1 }, { receipt: K.answer })));
      expect(await page.textContent('#answer-text')).toBe('plain');
      expect(await page.$('#answer-hidden-chars')).toBeNull();
    } finally {
      await page.close();
    }
  });

  it("served by a server, the page pins that server's log keys and model-plane keys (#30 row 7, #31)", async () => {
    const r = await runSvc(['issue', '--answer', 'Lisbon.', '--prompt', 'Capital of Portugal?', '--logged'], {
      env: { SVC_DATA_DIR: s.dir, SVC_LOG: '0' },
    });
    expect(r.code, r.err).toBe(0);
    const bundle = r.out;
    const page = await browser.newPage();
    try {
      await page.goto(`${s.url}/`);
      await verifyIn(page, bundle);
      expect(await page.textContent('#integrity')).toMatch(/PASS/);
      expect(await page.textContent('#layers')).toMatch(
        /Transparency log: included at index \d+ of \d+ in \S+, under a checkpoint signed by that log's key/,
      );
      expect(await page.textContent('#layers')).not.toMatch(/not one this page pins/);
      // Opened from disk, with no server's keys, the same bundle names its log as a claim only.
      await page.goto(`file://${PAGE_FILE}`);
      await verifyIn(page, bundle);
      expect(await page.textContent('#layers')).toMatch(/checkpoint signature not checked/);
    } finally {
      await page.close();
    }
  });

  it('served by a server, the page checks the SCITT statement a bundle carries with its log keys, and gives the verdict the API and the CLI give (#44 row 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-page-scitt-'));
    try {
      const r = await runSvc(['issue', '--answer', 'Oslo.', '--prompt', 'Capital of Norway?', '--scitt', join(dir, 's.cose')], {
        env: { SVC_DATA_DIR: s.dir, SVC_LOG: '0' },
      });
      expect(r.code, r.err).toBe(0);
      const good = JSON.parse(r.out);
      const bytes = fromBase64Url(good.scitt)!;
      bytes[bytes.length - 20]! ^= 1;
      const damaged = { ...good, scitt: toBase64Url(bytes) };
      const page = await browser.newPage();
      try {
        for (const [bundle, ok] of [
          [good, true],
          [damaged, false],
        ] as const) {
          const file = join(dir, ok ? 'good.json' : 'damaged.json');
          writeFileSync(file, JSON.stringify(bundle));
          // The API, the CLI (with the keys the same server publishes) and the page it serves agree.
          const api = await (await fetch(`${s.url}/api/v1/verify`, { method: 'POST', body: JSON.stringify(bundle) })).json();
          expect(api.verdict.overallOk).toBe(ok);
          expect(api.verdict.scitt).toMatchObject({ checked: true, ok });
          const cli = await runSvc(['verify', file, '--keys-url', s.url]);
          expect(cli.code, cli.out + cli.err).toBe(ok ? 0 : 1);
          await page.goto(`${s.url}/`);
          await verifyIn(page, JSON.stringify(bundle));
          expect(await page.textContent('#integrity')).toMatch(ok ? /Integrity: PASS/ : /Integrity: FAIL/);
          expect(await page.textContent('#layers')).toMatch(
            ok ? /SCITT statement: valid, registered in this server's log/ : /SCITT statement: INVALID/,
          );
        }
        // Opened from disk, no log keys are pinned: the layer is carried, not checked, and said so.
        await page.goto(`file://${PAGE_FILE}`);
        await verifyIn(page, JSON.stringify(good));
        expect(await page.textContent('#layers')).toMatch(/SCITT statement: carried, not checked/);
      } finally {
        await page.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
