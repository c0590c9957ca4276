// The issuing listener's routes are one table (#54 part 4): issuing/routes.ts, in the RouteSpec the
// public routes use. The listener mounts it and its OpenAPI document is built from it, so every
// documented operation is served and every served route is documented; the front's routes answer
// their refusals in OpenAI's shape, the others in the service's.
import { describe, expect, it } from 'vitest';
import { issueOpenApiDocument, issuingApp } from '../../src/internal.js';
import { ISSUE_ROUTES } from '../../src/issuing/routes.js';

const app = issuingApp({
  issue: () => Promise.reject(new Error('unused')),
  kinds: {
    issueTranscript: () => Promise.reject(new Error('unused')),
    issueRun: () => Promise.reject(new Error('unused')),
    issueExport: () => Promise.reject(new Error('unused')),
  },
  tokens: { match: () => null },
  ledger: false,
  service: 'acme',
  perMinute: 0,
  upstreams: { seat: () => null },
  log: () => {},
});

describe('the issuing route table', () => {
  it('the document lists exactly the table: each path, method and operation id once', () => {
    const doc = issueOpenApiDocument('acme');
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops as Record<string, { operationId: string }>).map(([m, op]) => `${m.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(documented.sort()).toEqual(ISSUE_ROUTES.map((r) => `${r.method} ${r.path} ${r.operationId}`).sort());
    expect(new Set(ISSUE_ROUTES.map((r) => r.operationId)).size).toBe(ISSUE_ROUTES.length);
    // The service's proof member is named in the front's operations; no placeholder is left.
    expect(JSON.stringify(doc)).not.toContain('<proof>');
    expect(JSON.stringify(doc.paths['/v1/chat/completions'])).toContain('acme_proof');
  });

  it('every documented operation is served: a token is asked for, or (the document) it answers; never 404 or 405', async () => {
    for (const r of ISSUE_ROUTES) {
      const res = await app.fetch(
        new Request(`http://issue.test${r.path}`, { method: r.method, ...(r.method === 'POST' ? { body: '{}' } : {}) }),
      );
      const body = await res.json();
      if (r.operationId === 'issueOpenApi') {
        expect(res.status).toBe(200);
        expect(body.openapi).toBe('3.1.0');
        continue;
      }
      expect(res.status, r.path).toBe(401);
      expect(res.headers.get('cache-control'), r.path).toBe(null);
      // The front answers as OpenAI's API does; the issuing routes as the service does.
      if ('errors' in r) expect(body.error, r.path).toMatchObject({ message: expect.any(String), type: expect.any(String) });
      else expect(body, r.path).toMatchObject({ error: expect.any(String), code: 'unauthorized' });
    }
    expect((await app.fetch(new Request('http://issue.test/api/v1/issue'))).status).toBe(405);
  });
});
