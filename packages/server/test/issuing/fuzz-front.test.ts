// A bounded slice of the stream fuzzer (test/fuzz/stream-fuzz.ts) in every test run: random
// upstream streams from a fixed seed, each read through the front by the openai package's
// documented loop. Either the proof signs exactly what that loop assembled (text, refusal, tool
// calls, finish reason), discloses exactly the members beyond the messages, verifies, and the log
// grew by one; or the client got the front's error and the log did not grow. The campaign runs more
// (`npm run fuzz -- --only front`, FUZZ_FRONT_CASES and FUZZ_FRONT_SEED).
import { type MessageAnswer, messageText, readMessage } from '@svc/core/issue';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedAnswer, foldChunk, prng, randomStreamCase, type Shown } from '../fuzz/stream-fuzz.js';
import { call } from '../support/harness.js';
import { scriptedFront, verdictOf } from './support.js';

const CASES = Number(process.env.FUZZ_FRONT_CASES ?? 80);
const SEED = Number(process.env.FUZZ_FRONT_SEED ?? 20261201);
/** Members the front treats as sampling settings, by the spec's list (wire-format s.15). */
const SAMPLING = new Set(['temperature', 'seed']);

let front: Awaited<ReturnType<typeof scriptedFront>>;
beforeAll(async () => {
  // Two ledger reads a case: the public read limit is not what is tested here.
  front = await scriptedFront(8, { SVC_RATE_READ: '0' });
}, 60_000);
afterAll(async () => front?.stop());

describe('stream fuzzer (bounded slice)', () => {
  it(`${CASES} random upstream streams (seed ${SEED}): signed = shown, or nothing signed`, async () => {
    const s = front.s;
    const client = new OpenAI({ baseURL: `${s.issueUrl}/v1`, apiKey: s.tokens.app!, maxRetries: 0 });
    const size = async () => {
      const n = (await call(s.url, '/api/transparency/ledger')).body.tree_size;
      if (typeof n !== 'number') throw new Error('the ledger did not say its size');
      return n;
    };
    const r = prng(SEED);
    const findings: string[] = [];
    let proved = 0;
    let refused = 0;
    for (let i = 0; i < CASES; i++) {
      const c = randomStreamCase(r, i);
      const model = front.seat({ stream: c.writes });
      const before = await size();
      const shown: Shown = { content: '', refusal: '', calls: [], finish: null };
      let proof: any;
      let error: unknown;
      try {
        const stream = await client.chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'Capital of France?' }],
          stream: true,
          ...c.extras,
        } as any);
        for await (const chunk of stream as unknown as AsyncIterable<any>) {
          foldChunk(shown, chunk);
          if (chunk.svc_proof) proof = chunk.svc_proof;
        }
      } catch (e) {
        error = e;
      }
      const grew = (await size()) - before;
      const say = (what: string) => findings.push(`${c.name}: ${what}`);
      if (!proof) {
        refused++;
        if (grew !== 0) say(`no proof reached the client, yet the log grew by ${grew}`);
        if (!/nothing was signed/.test(String((error as Error)?.message))) say(`no proof and no error from the front: ${String(error)}`);
        continue;
      }
      proved++;
      if (error) say(`a proof, then the client failed: ${String(error)}`);
      if (grew !== 1) say(`a proof, and the log grew by ${grew}`);
      const want = expectedAnswer(shown);
      if ('text' in want) {
        if (proof.answer !== want.text || proof.receipt.answer_form !== undefined)
          say(`signed ${JSON.stringify(proof.answer)}, shown ${JSON.stringify(want.text)}`);
      } else {
        let wanted: string | null = null;
        try {
          wanted = messageText(want.message as unknown as MessageAnswer);
        } catch {}
        if (proof.receipt.answer_form !== 'message' || proof.answer !== wanted || readMessage(proof.answer) === null)
          say(`signed ${proof.answer}, shown ${JSON.stringify(want.message)}`);
      }
      const disclosed = Object.fromEntries(Object.entries(c.extras).filter(([k]) => !SAMPLING.has(k)));
      if (JSON.stringify(proof.request ?? {}) !== JSON.stringify(disclosed))
        say(`disclosed ${JSON.stringify(proof.request)}, sent ${JSON.stringify(c.extras)}`);
      const v = await verdictOf(s.dir, proof);
      if (!v.verdict.overallOk || !v.signerRecognized) say('the proof does not verify');
    }
    expect(findings).toEqual([]);
    // The slice reaches both outcomes, and not only the trivial ones.
    expect(proved).toBeGreaterThan(CASES / 10);
    expect(refused).toBeGreaterThan(CASES / 10);
  }, 300_000);
});
