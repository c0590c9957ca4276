// Every example runs as part of the test command.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNode24 } from '@svc/tools/node24';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@svc/tools/chromium';
import { runs } from '@svc/tools/system';
import { issueProof } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
import { boot, type Booted } from './support/harness.js';

const ex = (p: string) => fileURLToPath(new URL(`../../../examples/${p}`, import.meta.url));
let s: Booted;

function run(
  file: string,
  env: NodeJS.ProcessEnv = {},
  args: string[] = [],
  node = process.execPath,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const c = spawn(node, [file, ...args], { env: { ...process.env, ...env } });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (out += d));
    c.on('close', (code) => resolve({ code, out }));
  });
}

beforeAll(async () => {
  s = await boot();
}, 60_000);
afterAll(async () => s?.stop());

describe('examples', () => {
  it('node-verify.mjs verifies in a Node app', async () => {
    const r = await run(ex('node-verify.mjs'));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('integrity (overallOk): true');
    expect(r.out).toContain('origin (signerRecognized): true');
    expect(r.out).toContain('record svc-ai-provenance-record: attested signed=true, signer_recognized=true');
  });

  it('issue-and-verify.mjs issues and verifies against a running server', async () => {
    const r = await run(ex('issue-and-verify.mjs'), { SVC_URL: s.url, SVC_DATA_DIR: s.dir });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/server verdict: overallOk=true signerRecognized=true/);
    expect(r.out).toMatch(/included at leaf \d+: true/);
  });

  it('issue-library.mjs issues through openIssuer beside the running server: each answer verifies and is logged', async () => {
    const r = await run(ex('issue-library.mjs'), { SVC_URL: s.url, SVC_DATA_DIR: s.dir });
    expect(r.code, r.out).toBe(0);
    expect(r.out.match(/overallOk=true signerRecognized=true logged at \d+/g)).toHaveLength(3);
  });

  /** An example run against the echo model through the issuing front, with the server's URL and a token. */
  async function throughFront(file: string) {
    const model = spawn(process.execPath, [ex('echo-model.mjs'), '0']);
    const { issuingServer } = await import('./issuing/support.js');
    let front: Awaited<ReturnType<typeof issuingServer>> | undefined;
    try {
      const endpoint = await new Promise<string>((ok) => model.stdout.once('data', (d) => ok(JSON.parse(String(d)).url)));
      front = await issuingServer({ council: { seats: [{ id: 'echo', label: 'Echo', model: 'echo-1', endpoint }] } });
      return await run(ex(file), { SVC_URL: front.url }, [`${front.issueUrl}/v1`, front.tokens.app!]);
    } finally {
      await front?.stop();
      model.kill();
    }
  }

  it('openai-client.mjs reads a proof off every path of the openai package, each verifying', async () => {
    const r = await throughFront('openai-client.mjs');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('You asked: Capital of France?');
    expect(r.out.match(/: "You asked: Capital of France\?" overallOk=true signerRecognized=true/g)).toHaveLength(4);
  });

  it('langchain-client.mjs reaches a proof over exactly what LangChain returned, on both APIs', async () => {
    const r = await throughFront('langchain-client.mjs');
    expect(r.code, r.out).toBe(0);
    expect(r.out.match(/: "You asked: Capital of France\?" proven=true/g)).toHaveLength(4);
  });

  it('echo-model.mjs speaks chat completions and the Responses API, whole and streamed', async () => {
    const port = 20000 + Math.floor(Math.random() * 30000);
    const c = spawn(process.execPath, [ex('echo-model.mjs'), String(port)]);
    try {
      await new Promise<void>((ok) => c.stdout.once('data', () => ok()));
      const ask = (stream: boolean) =>
        fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
          method: 'POST',
          body: JSON.stringify({ model: 'echo-1', stream, messages: [{ role: 'user', content: 'Hi there' }] }),
        });
      expect((await (await ask(false)).json()).choices[0].message.content).toBe('You asked: Hi there');
      const events = (await (await ask(true)).text()).split('\n\n').filter(Boolean);
      expect(events.at(-1)).toBe('data: [DONE]');
      expect(
        events
          .slice(0, -1)
          .map((e) => JSON.parse(e.slice(6)).choices[0].delta.content ?? '')
          .join(''),
      ).toBe('You asked: Hi there');
      // And the Responses API: one message item whole, or its typed events ending in response.completed.
      const respond = (stream: boolean) =>
        fetch(`http://127.0.0.1:${port}/v1/responses`, {
          method: 'POST',
          body: JSON.stringify({ model: 'echo-1', stream, input: 'Hi there' }),
        });
      expect((await (await respond(false)).json()).output[0].content[0].text).toBe('You asked: Hi there');
      const typed = (await (await respond(true)).text())
        .split('\n\n')
        .filter(Boolean)
        .map((e) => {
          const [name, data] = e.split('\n');
          const d = JSON.parse(data!.slice(6));
          expect(name).toBe(`event: ${d.type}`);
          return d;
        });
      expect(typed.at(-1).type).toBe('response.completed');
      expect(
        typed
          .filter((d) => d.type === 'response.output_text.delta')
          .map((d) => d.delta)
          .join(''),
      ).toBe('You asked: Hi there');
    } finally {
      c.kill();
    }
  });

  it('verify-with-jose.mjs checks an enveloped answer with jose alone: Ed25519 on the system Node (20), ML-DSA-87 on Node 24', async () => {
    const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
    const file = join(s.dir, 'enveloped.json');
    const issued = spawnSync(process.execPath, [cli, 'issue', '--answer', 'Paris.', '--envelopes', 'jws,cose'], {
      env: { ...process.env, SVC_DATA_DIR: s.dir },
      encoding: 'utf8',
    });
    expect(issued.status, issued.stderr).toBe(0);
    writeFileSync(file, issued.stdout);
    // jose takes ML-DSA-87 where WebCrypto has it (Node 24) and Ed25519 where it does not.
    const system = spawnSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (Number(system.split('.')[0]) < 24) {
      const old = await run(ex('verify-with-jose.mjs'), { SVC_URL: s.url }, [file], 'node');
      expect(old.code, old.out).toBe(0);
      expect(old.out).toContain('Ed25519 signature: valid');
      expect(old.out).toContain('answer matches the receipt: true');
    }
    const node24 = ensureNode24();
    if (!node24) return expect.fail('Node 24 could not be provisioned for the ML-DSA-87 half');
    const pq = await run(ex('verify-with-jose.mjs'), { SVC_URL: s.url }, [file], node24);
    expect(pq.code, pq.out).toBe(0);
    expect(pq.out).toContain('ML-DSA-87 signature: valid');
    expect(pq.out).toContain('answer matches the receipt: true');
  });

  it.runIf(runs('chromium'))('browser/app.mjs verifies in a browser page', async () => {
    const out = await build({ entryPoints: [ex('browser/app.mjs')], bundle: true, format: 'iife', platform: 'browser', write: false });
    // Bundled as the README says, with nothing to read: no import of a chunk a bundler must ignore.
    expect(out.warnings).toEqual([]);
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.setContent('<textarea id="doc"></textarea><button id="go">Verify</button><p id="out"></p>');
      await page.addScriptTag({ content: out.outputFiles[0]!.text });
      const b = issueProof({ answer: 'in the browser', model: 'm', ts: 1 }, { receipt: testKeys('example').answer });
      await page.fill('#doc', JSON.stringify(b));
      await page.click('#go');
      await page.waitForSelector('#out[data-done="1"]');
      expect(await page.textContent('#out')).toBe('integrity: PASS; origin: not recognised (no keys pinned)');
    } finally {
      await browser.close();
    }
  });
});
