import { expect } from 'vitest';
import { SvcError, type SvcErrorCode } from '../src/errors.js';
import { testKeys } from '../src/testing/keys.js';
import type { VerifyResponse } from '../src/dispatch.js';

export const K = testKeys();
export const trusted = { trustedKeys: K.trustedKeys };
export const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

export async function expectSvcError(p: Promise<unknown>, code: SvcErrorCode, status: number): Promise<void> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e, 'expected a typed refusal').toBeInstanceOf(SvcError);
  expect((e as SvcError).code).toBe(code);
  expect((e as SvcError).status).toBe(status);
}

/** Flip one hex digit of a hex string at position i. */
export function flipHex(s: string, i = 10): string {
  const c = s[i] === '0' ? '1' : '0';
  return s.slice(0, i) + c + s.slice(i + 1);
}

type Suffix = 'proof' | 'transcript' | 'autopilot-run' | 'export' | 'sth' | 'consistency';

/** The verdict of a response of the kind named by `suffix`, narrowed by its kind; throws for any other kind. */
export function verdictOf<S extends Suffix>(r: VerifyResponse, suffix: S): Extract<VerifyResponse, { kind: `${string}-${S}` }>['verdict'] {
  if (!r.kind.endsWith(`-${suffix}`) || r.kind.endsWith('-ai-provenance-record'))
    throw new Error(`expected a ${suffix} verdict, got ${r.kind}`);
  return r.verdict as never;
}
