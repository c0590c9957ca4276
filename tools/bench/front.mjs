// The OpenAI-compatible front's added latency (issue 52, part 7): 50 streamed chat completions at
// once against a local upstream that sends 20 chunks 10 ms apart, read by the client directly
// (the baseline, in the same run) and through the front of a `svc serve` process of its own. Per
// request, from the upstream's own clock (it runs in this process): first byte = the client's first
// body chunk minus the upstream's first write; tail = the proof's arrival (front) or the stream's
// end (direct) minus the upstream's last write. The tail includes waiting for the signed head the
// answer is logged under: reported beside the batch interval. `npm run bench` runs it; alone:
// `node tools/bench/front.mjs [--quick]` after `npm run build`.
import { onNode24 } from '../lib/node24.mjs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addToken } from '../../packages/server/dist/internal.js';
import { issuingServe, line, machine, percentiles } from './util.mjs';

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
const CONCURRENT = 50;
const CHUNKS = 20;
const GAP_MS = 10;
const BATCH_SECONDS = 1;

/** An upstream that streams CHUNKS chunks GAP_MS apart and notes when it wrote the first and last. */
function upstream() {
  const sent = new Map();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const id = JSON.parse(raw).user;
      const t = { first: 0, last: 0 };
      sent.set(id, t);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta, finish = null) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      let i = 0;
      const next = () => {
        if (i === 0) t.first = performance.now();
        if (i < CHUNKS) {
          res.write(chunk({ content: `piece ${i} ` }));
          i++;
          return void setTimeout(next, GAP_MS);
        }
        res.write(chunk({}, 'stop'));
        t.last = performance.now();
        res.end('data: [DONE]\n\n');
      };
      next();
    });
  });
  return { server, sent };
}

/** One streamed request: when its first body chunk came, and when the proof (or the end) came. */
async function one(url, token, id) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ model: 'up', stream: true, user: id, messages: [{ role: 'user', content: 'Say twenty things.' }] }),
  });
  if (r.status !== 200) throw new Error(`front bench: ${url} answered ${r.status}`);
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let first = 0;
  let proof = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    const now = performance.now();
    if (done) break;
    if (!first) first = now;
    text += dec.decode(value, { stream: true });
    if (!proof && text.includes('"svc_proof"')) proof = now;
  }
  return { first, end: proof || performance.now(), proved: proof > 0 };
}

/** Rounds of CONCURRENT requests at once; per request, the first-byte and tail delays (ms). */
async function drive(url, token, sent, rounds, tag) {
  const firsts = [];
  const tails = [];
  let proved = 0;
  for (let round = 0; round < rounds; round++) {
    const ids = Array.from({ length: CONCURRENT }, (_, i) => `${tag}-${round}-${i}`);
    const got = await Promise.all(ids.map((id) => one(url, token, id)));
    got.forEach((g, i) => {
      const t = sent.get(ids[i]);
      firsts.push(g.first - t.first);
      tails.push(g.end - t.last);
      if (g.proved) proved++;
    });
  }
  return { first: percentiles(firsts), tail: percentiles(tails), proved, n: firsts.length };
}

export async function frontBench({ quick = false } = {}) {
  const rounds = quick ? 3 : 8;
  const up = upstream();
  await new Promise((r) => up.server.listen(0, '127.0.0.1', r));
  const upUrl = `http://127.0.0.1:${up.server.address().port}/v1`;
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-front-'));
  let child;
  try {
    const direct = await drive(`${upUrl}/chat/completions`, null, up.sent, rounds, 'direct');
    writeFileSync(join(dir, 'council.json'), JSON.stringify({ seats: [{ id: 'up', label: 'up', model: 'up', endpoint: upUrl }] }));
    const token = addToken(join(dir, 'issue-tokens'), 'bench');
    const served = issuingServe(CLI, { ...process.env, SVC_DATA_DIR: dir, SVC_LOG: '0', SVC_LEDGER_BATCH_SECONDS: String(BATCH_SECONDS) });
    child = served.child;
    const port = served.port;
    const frontUrl = `http://127.0.0.1:${port}/v1/chat/completions`;
    for (let i = 0; ; i++) {
      try {
        await one(frontUrl, token, `warm-${i}`);
        break;
      } catch (e) {
        if (i > 300) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const front = await drive(frontUrl, token, up.sent, rounds, 'front');
    if (front.proved !== front.n) throw new Error(`front bench: ${front.n - front.proved} of ${front.n} streams had no proof`);
    const ms = (p) => `${p.p50.toFixed(1)} ms / ${p.p99.toFixed(1)} ms`;
    console.log(`machine: ${machine()}; ${CONCURRENT} streams at once, ${rounds} rounds, ${CHUNKS} chunks ${GAP_MS} ms apart`);
    line('direct to the upstream (baseline): first byte p50 / p99', ms(direct.first));
    line('through the front: first byte p50 / p99', ms(front.first));
    line('front first byte p50 / direct first byte p50', (front.first.p50 / Math.max(direct.first.p50, 0.01)).toFixed(1));
    line('direct: last upstream byte to end of stream p50 / p99', ms(direct.tail));
    line(`front: last upstream byte to proof p50 / p99 (batch ${BATCH_SECONDS} s)`, ms(front.tail));
    line('front: last byte to proof p50 / batch interval', (front.tail.p50 / (BATCH_SECONDS * 1000)).toFixed(2));
  } finally {
    child?.kill();
    up.server.closeAllConnections();
    up.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await frontBench({ quick: process.argv.includes('--quick') });
  process.exit(0);
}
