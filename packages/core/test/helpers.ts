import { expect } from 'vitest';
import { SvcError, type SvcErrorCode } from '../src/errors.js';
import { testKeys } from '../src/testing/keys.js';
import type { KindVerdicts, VerifyResponse } from '../src/dispatch.js';
import { asKind } from '../src/testing/kind.js';

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

/** The verdict of a response of kind `kind`, typed (asKind of @svc/core/testing); throws for any other kind. */
export function verdictOf<K extends keyof KindVerdicts>(r: VerifyResponse, kind: K): KindVerdicts[K] {
  return asKind(r, kind).verdict as KindVerdicts[K];
}
