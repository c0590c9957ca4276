// Replays test-vectors/*.json, the material a third party runs against its own implementation.
import { describe, expect, it } from 'vitest';
import { verifyBundle } from '../src/dispatch.js';
import { SvcError } from '../src/errors.js';
import type { BridgeKey } from '../src/wire/keys.js';
import { logPolicy } from '../src/tlog/index.js';
import { envelopeChecker } from '../src/envelope/receipt.js';
import { ourVectors } from './vectors-fs.js';

interface Case {
  description: string;
  intent: {
    overallOk?: boolean;
    signerRecognized?: boolean;
    promptUnverified?: true;
    keyRecognized?: boolean;
    logOk?: boolean;
    quorumMet?: boolean | null;
    witnesses?: number;
    status?: number;
    code?: string;
  };
  trustedBridgeKeys?: BridgeKey[];
  trustedEnvelopeKeys?: { algo: string; public_key_hex: string }[];
  logPolicy?: string;
  /** Replayed with envelopes: envelopeChecker. */
  checkEnvelopes?: boolean;
  input?: unknown;
  inputText?: string;
  service?: string;
  trustedKeys: any[];
  expected: { status: number; response?: unknown; code?: string };
}

const files = Object.entries(ourVectors).map(([path, data]) => ({
  name: path.split('/').pop()!,
  data: data as { description: string; cases: Case[] },
}));

/** A member of recorded JSON by path (undefined where absent), read without a cast. */
const at = (x: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), x);
describe('test-vectors/', () => {
  it('holds a file per kind, none empty', () => {
    const names = files.map((f) => f.name).sort();
    expect(names).toEqual([
      'consistency.json',
      'errors.json',
      'export.json',
      'proof.json',
      'record.json',
      'run.json',
      'sth.json',
      'transcript.json',
    ]);
    for (const f of files) {
      expect(typeof f.data.description, f.name).toBe('string');
      expect(f.data.cases.length, `${f.name} yields no case`).toBeGreaterThan(0);
    }
  });

  for (const f of files) {
    describe(f.name, () => {
      for (const c of f.data.cases) {
        it(c.description, async () => {
          expect(c.trustedKeys).toBeInstanceOf(Array);
          // The recorded answer must say what the case declares it shows.
          if (c.intent.status !== undefined)
            expect({ status: c.expected.status, code: c.expected.code }).toEqual({ status: c.intent.status, code: c.intent.code });
          else
            expect({
              overallOk: at(c.expected.response, 'verdict', 'overallOk'),
              signerRecognized: at(c.expected.response, 'signerRecognized'),
              ...('promptUnverified' in c.intent ? { promptUnverified: at(c.expected.response, 'verdict', 'promptUnverified') } : {}),
              ...('logOk' in c.intent ? { logOk: at(c.expected.response, 'verdict', 'log', 'ok') } : {}),
              ...('quorumMet' in c.intent ? { quorumMet: at(c.expected.response, 'verdict', 'log', 'quorumMet') } : {}),
              ...('witnesses' in c.intent ? { witnesses: at(c.expected.response, 'verdict', 'log', 'witnesses') } : {}),
              ...('keyRecognized' in c.intent
                ? {
                    keyRecognized:
                      at(c.expected.response, 'verdict', 'bridge', 'keyRecognized') ??
                      at(c.expected.response, 'verdict', 'receipt', 'diversity', 'keyRecognized'),
                  }
                : {}),
            }).toEqual(c.intent);
          const input = c.inputText ?? c.input;
          let got: { status: number; response?: unknown; code?: string };
          try {
            got = {
              status: 200,
              response: await verifyBundle(input, {
                trustedKeys: c.trustedKeys,
                trustedBridgeKeys: c.trustedBridgeKeys,
                trustedEnvelopeKeys: c.trustedEnvelopeKeys,
                ...(c.logPolicy ? { logPolicy: logPolicy(c.logPolicy) } : {}),
                ...(c.checkEnvelopes ? { envelopes: envelopeChecker } : {}),
                service: c.service,
              }),
            };
          } catch (e) {
            expect(e).toBeInstanceOf(SvcError);
            got = { status: (e as SvcError).status, code: (e as SvcError).code };
          }
          expect(got).toEqual(c.expected);
        });
      }
    });
  }
});
