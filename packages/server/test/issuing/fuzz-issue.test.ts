// A bounded slice of fuzzing the issuing input (issue 53): answer objects whose every member is
// drawn from hostile values (lone surrogates, wrong types, huge and deep values, unknown members),
// alone and in the batch form, with hostile header sets and query strings. Whatever is sent: never
// a 5xx; 200 only for what the schema and the rules accept, and then a bundle that verifies; the
// log grows by exactly the answers a 200 returned.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/harness.js';
import { rawRequest } from '../support/rawhttp.js';
import { issuingServer, verdictOf, type IssuingServer } from './support.js';

let s: IssuingServer;
beforeAll(async () => {
  s = await issuingServer({ env: { SVC_RATE_ISSUE: '0', SVC_RATE_READ: '0' } });
}, 60_000);
afterAll(async () => s?.stop());

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('\ud800', 'a\udfffb', '\u0000', '\u2028', 'Ω'.repeat(300), '', ' '),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 3 }),
  fc.constant({ persona: 1, voice: 0, attachment: 0, history_turns: 2 }),
  fc.constant(JSON.parse(`${'['.repeat(600)}${']'.repeat(600)}`)),
);
const MEMBERS = ['answer', 'prompt', 'model', 'framing', 'governance_flag', 'council_grounded', 'envelopes', 'logged', 'scitt', 'unknown'];
/** An answer object: usually a string answer, any subset of the members, each with a hostile value. */
const hostileObject = fc
  .tuple(fc.option(hostileString, { nil: undefined }), fc.dictionary(fc.constantFrom(...MEMBERS), hostileValue, { maxKeys: 4 }))
  .map(([answer, rest]) => (answer === undefined ? rest : { ...rest, answer }));
/** Mostly hostile, sometimes well-formed (with any text), so both outcomes are reached. */
const answerObject = fc.oneof(
  { arbitrary: hostileObject, weight: 3 },
  {
    arbitrary: fc.record(
      { answer: fc.string({ unit: 'grapheme', maxLength: 30 }), model: fc.string({ minLength: 1, maxLength: 20 }) },
      { requiredKeys: ['answer'] },
    ),
    weight: 1,
  },
);

const QUERIES = ['', '?x=1', '?token=abc', '?a=%ZZ', '?svc=%00', `?q=${'a'.repeat(3000)}`];
const HEADERS = [
  [],
  ['X-Forwarded-For: 1.2.3.4'],
  ['authorization: Bearer svc_it_nope'],
  ['Content-Type: text/plain'],
  ['Transfer-Encoding: chunked, identity'],
];

describe('issuing input fuzzer (bounded slice)', () => {
  it('the fixed corpus: every member of the answer object with every hostile value, alone and in a batch: never a 5xx', async () => {
    const VALUES: unknown[] = [
      '\ud800',
      'a\udfffb',
      '\u0000',
      'x'.repeat(300_000),
      7,
      -0.5,
      true,
      null,
      [],
      {},
      ['\ud800'],
      JSON.parse(`${'['.repeat(600)}${']'.repeat(600)}`),
    ];
    const statuses = new Map<number, number>();
    for (const member of MEMBERS)
      for (const value of VALUES)
        for (const [path, body] of [
          ['/api/v1/issue', { answer: 'ok', [member]: value }],
          ['/api/v1/issue/batch', { answers: [{ answer: 'ok' }, { answer: 'ok', [member]: value }] }],
        ] as const) {
          const r = await fetch(`${s.issueUrl}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${s.tokens.app}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          await r.arrayBuffer();
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          expect(r.status, `${path} ${member}=${JSON.stringify(value).slice(0, 40)}`).toBeLessThan(500);
        }
    expect(statuses.get(422)).toBeGreaterThan(50);
  }, 120_000);

  it('hostile answer objects and batches: never a 5xx; 200 only when valid, then it verifies and is logged', async () => {
    const size = async () => (await call(s.url, '/api/transparency/ledger')).body.tree_size as number;
    let ok = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          answerObject.map((a) => ({ path: '/api/v1/issue', body: a as unknown, answers: 1 })),
          fc
            .array(answerObject, { minLength: 0, maxLength: 3 })
            .map((as) => ({ path: '/api/v1/issue/batch', body: { answers: as } as unknown, answers: as.length })),
        ),
        fc.constantFrom(...QUERIES),
        fc.constantFrom(...HEADERS),
        async (req, query, headers) => {
          const before = await size();
          const body = Buffer.from(JSON.stringify(req.body), 'utf8');
          const r = await rawRequest(Number(new URL(s.issueUrl).port), [
            `POST ${req.path}${query} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nAuthorization: Bearer ${s.tokens.app}\r\n${headers.map((h) => `${h}\r\n`).join('')}Content-Length: ${body.length}\r\n\r\n`,
            body,
          ]);
          expect(r.status, `${req.path}${query} ${JSON.stringify(req.body).slice(0, 200)}`).not.toBeNull();
          expect(r.status!, r.text.slice(0, 300)).toBeLessThan(500);
          const grew = (await size()) - before;
          if (r.status === 200) {
            ok++;
            // rawRequest reads bytes as latin1: the body is UTF-8.
            const json = JSON.parse(Buffer.from(r.text.slice(r.text.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8'));
            const bundles = req.path.endsWith('batch') ? json.bundles : [json];
            expect(grew).toBe(req.answers);
            for (const b of bundles) {
              const v = await verdictOf(s.dir, b);
              expect(v.verdict.overallOk, JSON.stringify(v.verdict).slice(0, 400)).toBe(true);
            }
          } else {
            refused++;
            expect(grew).toBe(0);
          }
        },
      ),
      { numRuns: 60, seed: 53 },
    );
    expect(ok).toBeGreaterThan(3);
    expect(refused).toBeGreaterThan(10);
  }, 180_000);
});
