import { SvcError, statusOf, type SvcErrorCode } from '@svc/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpError, LedgerError, refusalOf, type HttpErrorCode, type LedgerErrorCode } from '../../src/internal.js';

const CORE: SvcErrorCode[] = [
  'invalid_json',
  'too_large',
  'unknown_kind',
  'sth_wrapper',
  'too_many_turns',
  'record_mismatch',
  'unsupported_kind',
  'invalid_org',
  'invalid_request',
];

describe('two closed error-code unions', () => {
  it('the core knows nothing of routing; the server extends it with the HTTP-only refusals', () => {
    expectTypeOf<'not_found'>().not.toMatchTypeOf<SvcErrorCode>();
    expectTypeOf<'unavailable'>().not.toMatchTypeOf<SvcErrorCode>();
    expectTypeOf<SvcErrorCode>().toMatchTypeOf<HttpErrorCode>();
  });

  it('every code has the status of its table, and a core refusal keeps its status through the server', () => {
    const http: Record<Exclude<HttpErrorCode, SvcErrorCode>, number> = {
      out_of_range: 422,
      not_found: 404,
      method_not_allowed: 405,
      rate_limited: 429,
      unavailable: 503,
      not_implemented: 501,
      unauthorized: 401,
      bad_gateway: 502,
      gateway_timeout: 504,
      internal: 500,
    };
    for (const [code, status] of Object.entries(http)) {
      const e = new HttpError(code as HttpErrorCode, 'm');
      expect([e.status, e.toJSON()]).toEqual([status, { error: 'm', code }]);
    }
    for (const code of CORE) {
      const r = refusalOf(new SvcError(code, 'core said no'));
      expect(r).toBeInstanceOf(HttpError);
      expect([r!.code, r!.status, r!.message]).toEqual([code, statusOf(code), 'core said no']);
    }
  });

  it("ledger refusals are the ledger's own, mapped at the HTTP edge; no ledger module imports HTTP", () => {
    const want: Record<LedgerErrorCode, number> = {
      withheld: 503,
      unavailable: 503,
      invalid_request: 422,
      out_of_range: 422,
      not_found: 404,
    };
    for (const [code, status] of Object.entries(want)) {
      const r = refusalOf(new LedgerError(code as LedgerErrorCode, 'the log says no'));
      expect([r!.status, r!.message]).toEqual([status, 'the log says no']);
    }
    // A refusal that knows when to come back (a full queue) says so: Retry-After at the edge.
    expect(refusalOf(new LedgerError('unavailable', 'busy', { retryAfter: 7 }))!.retryAfter).toBe(7);
    expect(refusalOf(new LedgerError('unavailable', 'busy'))!.retryAfter).toBeUndefined();
    const dir = fileURLToPath(new URL('../../src/ledger/', import.meta.url));
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text, f).not.toMatch(/from '(\.\.\/)+http\/|HttpError/);
    }
  });

  it('anything that is not a refusal stays a bug (no RangeError or TypeError becomes a 4xx)', () => {
    for (const e of [new RangeError('Maximum call stack size exceeded'), new TypeError('x'), 'text', undefined]) {
      expect(refusalOf(e)).toBeUndefined();
    }
  });
});
