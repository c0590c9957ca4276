// One route table: the app routes, limits and caches from it, and the OpenAPI document is built
// from it, so no endpoint can exist in one and not the other.
import { describe, expect, it } from 'vitest';
import { openApiDocument, ROUTES, UNDOCUMENTED } from '../src/internal.js';
import { boot } from './support/harness.js';

describe('the route table', () => {
  it('every route is in the OpenAPI document with its operation id and caching, and the document has no other', () => {
    const doc = openApiDocument('svc', 'test') as any;
    const documented = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) =>
      Object.entries(ops)
        .filter(([m]) => m !== 'options')
        .map(([m, op]: [string, any]) => `${m.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(documented.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path} ${r.operationId}`).sort());
    for (const r of ROUTES) {
      const op = doc.paths[r.path][r.method.toLowerCase()];
      if ('cache' in r) expect(op.responses['200'].headers['Cache-Control'].schema.const).toBe(r.cache);
      const path: string = r.path;
      if ('preflight' in r) expect(doc.paths[path].options.operationId).toBe(r.preflight);
      else expect(doc.paths[path].options).toBeUndefined();
    }
    // Every answer advertises OPTIONS, so every API route answers a preflight.
    for (const r of ROUTES) {
      const path: string = r.path;
      expect('preflight' in r, path).toBe(true);
    }
    const ids = [...ROUTES.map((r) => r.operationId), ...ROUTES.flatMap((r) => ('preflight' in r ? [r.preflight] : []))];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("the app answers every route of the table (never 404 or 405), with the table's caching, and its preflights with 204", async () => {
    const s = await boot({ rate: { verify: 0, read: 0, modelKeys: 0, tiles: 0 } });
    try {
      for (const r of [...ROUTES, ...UNDOCUMENTED]) {
        const query = r.path.endsWith('/consistency') ? '?first=1' : '';
        // A rest-of-path parameter gets a value of its form: the fresh log's tree is empty, so the
        // tile is one the tree does not hold (404 from the handler, not from routing).
        const path = r.path.replace('{tile}', '0/000.p/1');
        const res = await fetch(s.url + path + query, {
          method: r.method,
          ...(r.method === 'POST' ? { body: JSON.stringify({ answer: 'x' }), headers: { 'content-type': 'application/json' } } : {}),
        });
        const text = await res.text();
        expect(res.status, `${r.method} ${r.path}`).not.toBe(405);
        if (res.status === 404) expect(text, `${r.method} ${r.path}`).not.toContain('no such endpoint');
        if ('rest' in r) expect(res.status).toBe(404);
        if (res.status === 200 && 'cache' in r) expect(res.headers.get('cache-control'), r.path).toBe(r.cache);
        const pre = await fetch(s.url + path, { method: 'OPTIONS' });
        expect(pre.status, `OPTIONS ${r.path}`).toBe('preflight' in r ? 204 : 405);
        if ('preflight' in r) expect(pre.headers.get('access-control-allow-methods')).toContain('OPTIONS');
      }
    } finally {
      await s.stop();
    }
  });
});
