// The issuing decisions' vectors (test-vectors/issuing/, docs/wire-format.md s.14): the question a
// chat completion binds, and the token file's lines (hashes made by Python's hashlib).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { textSha256Hex } from '@svc/core/primitives';
import { messageText, readMessage } from '@svc/core/issue';
import { matchToken, parseTokens, questionOf } from '../../src/internal.js';
import { AnswerGatherer, NotAnAnswer, onlyChoice } from '../../src/issuing/answer-shape.js';
import { StreamModel } from '../../src/issuing/upstream.js';
import {
  bindingOf,
  disclosedMembers,
  RESPONSES_CONTROL_MEMBERS,
  refuseClientWrittenAnswers,
  responsesMessages,
} from '../../src/issuing/front-request.js';
import { finishOf, readOutput, signedItems } from '../../src/issuing/response-shape.js';

const vectors = (name: string) => JSON.parse(readFileSync(new URL(`../../../../test-vectors/issuing/${name}`, import.meta.url), 'utf8'));

describe('test-vectors/issuing', () => {
  const binding = vectors('question-binding.json');
  for (const c of binding.cases)
    it(`question binding: ${c.name}`, () => {
      expect(questionOf(c.messages)).toEqual(c.expect);
    });

  const tokens = vectors('token-file.json');
  for (const t of tokens.tokens)
    it(`token ${t.name}: its line, and only its token matches it`, () => {
      const entries = parseTokens(t.line);
      expect(matchToken(entries, t.token)).toBe(t.name);
      expect(matchToken(entries, `${t.token}x`)).toBeNull();
    });
  for (const [i, f] of tokens.files.entries())
    it(`token file ${i}: ${f.error ? `refused at ${f.error}` : 'accepted'}`, () => {
      if (f.error) expect(() => parseTokens(f.text)).toThrow(new RegExp(f.error));
      else expect(parseTokens(f.text).map((e) => e.name)).toEqual(f.names);
    });
});

describe('test-vectors/issuing: the front (wire-format s.15)', () => {
  const form = vectors('message-form.json');
  for (const c of form.cases)
    it(`message form: ${c.name}`, () => {
      expect(messageText(c.message)).toBe(c.text);
      expect(textSha256Hex(c.text)).toBe(c.answer_sha256);
      expect(readMessage(c.text)).toEqual(c.message);
    });
  for (const c of form.refused)
    it(`message form refused: ${c.name}`, () => {
      expect(readMessage(c.text)).toBeNull();
    });

  const front = vectors('front-reading.json');
  for (const c of front.chunks)
    it(`chunks: ${c.name}`, () => {
      const read = () => {
        const g = new AnswerGatherer();
        const model = new StreamModel();
        for (const chunk of c.chunks) {
          model.add(chunk.model);
          const choice = onlyChoice(chunk);
          if (choice) g.add(choice, 'delta');
        }
        return { ...g.signed(), ...('model' in c.expect ? { model: model.named ?? null } : {}) };
      };
      if (c.expect.refused) expect(read).toThrow(NotAnAnswer);
      else expect(read()).toEqual(c.expect);
    });
  for (const c of front.requests)
    it(`request: ${c.name}`, () => {
      const judge = () => {
        refuseClientWrittenAnswers(c.body, c.body.messages);
        return disclosedMembers(c.body) ?? null;
      };
      if (c.expect.refused) expect(judge).toThrow(/./);
      else expect(judge()).toEqual(c.expect.disclosed);
    });
  for (const c of front.responses)
    it(`response (s.15.6): ${c.name}`, () => {
      const read = () => {
        const items = readOutput(c.response);
        return signedItems(items, finishOf(c.response, items));
      };
      if (c.expect.refused) expect(read).toThrow(NotAnAnswer);
      else expect(read()).toEqual(c.expect);
    });
  for (const c of front.responseRequests)
    it(`response request (s.15.6): ${c.name}`, () => {
      const judge = () => {
        const messages = responsesMessages(c.body);
        refuseClientWrittenAnswers(c.body, messages);
        const q = bindingOf(c.body, messages, RESPONSES_CONTROL_MEMBERS);
        const { request, ...question } = q ?? {};
        return { question: q ? question : null, disclosed: request ?? null };
      };
      if (c.expect.refused) expect(judge).toThrow(/./);
      else expect(judge()).toEqual(c.expect);
    });
});
