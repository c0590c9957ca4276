// The house's layers (#32): no import circle in either package, counting type-only
// imports (a circle of types is a circle of ideas); the core's schemas import only TypeBox and the
// limits, a leaf that imports nothing; and a limit of the specification is written once, there.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** Each source file of `dir` with the relative modules it imports (values and types alike). */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const f of files) {
    const file = resolve(dir, f);
    const text = readFileSync(file, 'utf8');
    // Static imports and re-exports, bare imports (for their effects) and dynamic import(): a module
    // loaded lazily is still a dependency, and its direction counts the same.
    const deps = [...text.matchAll(/(?:^(?:import|export)\s[^'"]*?from\s+|^import\s+|\bimport\(\s*)'(\.[^']+)'/gm)].map((m) =>
      resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')),
    );
    graph.set(file, deps);
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan): every import circle. */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) found.push(c);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('layers', () => {
  it('the circle finder finds a circle (it can fail)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(g).map((c) => c.sort())).toEqual([['a', 'b', 'c']]);
  });

  for (const pkg of ['core', 'server'])
    it(`@svc/${pkg} has no import circle, type-only imports included`, () => {
      const src = join(repo, 'packages', pkg, 'src');
      const found = circles(importGraph(src)).map((c) => c.map((f) => relative(src, f)).join(' -> '));
      expect(found).toEqual([]);
    });

  // #32 item 2: the core in layers. A module belongs to its folder (a top-level file is a unit of
  // its own); an import goes to its own unit or to one of a lower rank, never up.
  const CORE_RANKS: Record<string, number> = {
    // The one table of kinds, read by names, detection, the response union and the server.
    kinds: -1,
    limits: 0,
    errors: 0,
    names: 0,
    text: 0,
    lib: 0,
    encoding: 1,
    schemas: 1,
    detect: 1,
    crypto: 2,
    merkle: 2,
    wire: 2,
    parse: 2,
    envelope: 3,
    tlog: 3,
    verify: 4,
    record: 5,
    scitt: 5,
    issue: 5,
    dispatch: 6,
    // proofFetch and proofOf: a client's reading of the front's answers, above the kinds it names.
    client: 6,
    testing: 7,
    index: 7,
    // The storage entry (@svc/core/merkle): the tree and its tiles, gathered from merkle/ and tlog/.
    'merkle-entry': 7,
    // The issuing, record and primitives entries (@svc/core/issue, /record, /primitives).
    'issue-entry': 7,
    'record-entry': 7,
    'primitives-entry': 7,
  };
  const unitOf = (src: string, file: string) => {
    const rel = relative(src, file);
    return rel.includes('/') ? rel.split('/')[0]! : rel.replace(/\.(d\.)?ts$/, '');
  };
  /** Imports that run to a higher rank (or to a unit with no rank), as `from -> to`. */
  const upward = (graph: Map<string, string[]>, src: string, ranks: Record<string, number>) => {
    const out: string[] = [];
    for (const [file, deps] of graph) {
      const a = unitOf(src, file);
      if (a === 'globals') continue;
      for (const d of deps) {
        const b = unitOf(src, d);
        if (a === b) continue;
        if (!(a in ranks) || !(b in ranks) || ranks[b]! >= ranks[a]!) out.push(`${relative(src, file)} -> ${relative(src, d)}`);
      }
    }
    return out;
  };

  it('@svc/core imports only downward: limits and errors, encoding, crypto/merkle/wire, envelope/tlog, verify, record/scitt/issue, dispatch', () => {
    const src = join(repo, 'packages', 'core', 'src');
    const graph = importGraph(src);
    expect(upward(graph, src, CORE_RANKS)).toEqual([]);
    // It can fail: tlog importing the verifier (as it once did, for a type) is upward.
    const tried = new Map(graph);
    const tlogFile = [...graph.keys()].find((f) => relative(src, f) === 'tlog/policy-checker.ts')!;
    tried.set(tlogFile, [...graph.get(tlogFile)!, join(src, 'verify', 'log.ts')]);
    expect(upward(tried, src, CORE_RANKS)).toEqual(['tlog/policy-checker.ts -> verify/log.ts']);
  });

  // The server in layers: the ledger at the bottom, HTTP above the domain, the route groups above
  // both, the route table and its document above them, the apps and the composition root on top.
  const SERVER_RANKS: Record<string, number> = {
    util: 0,
    'log-levels': 0,
    entries: 0,
    version: 0,
    config: 1,
    ledger: 1,
    crypto: 1,
    net: 1,
    log: 2,
    council: 2,
    keys: 3,
    pool: 3,
    http: 3,
    cbom: 3,
    tlog: 4,
    witness: 4,
    worker: 4,
    // The mirror: a cosigner (witness/) that keeps logs (the ledger's tile rule).
    mirror: 5,
    scitt: 5,
    cluster: 5,
    api: 6,
    // Issuing: the issuer, its signing threads, the private listener and the OpenAI front.
    issuing: 6,
    routes: 7,
    openapi: 8,
    app: 9,
    'witness-app': 9,
    // Above the witness's app, whose data-folder rule and listener it shares.
    'mirror-app': 9.5,
    // The composition root in two halves: the parts (no socket), then node:http serving them.
    assemble: 9.7,
    server: 10,
    cli: 11,
    index: 12,
    internal: 13,
  };

  it('@svc/server imports only downward: ledger and config, HTTP and the domain, route groups, the route table, the apps, the composition root', () => {
    const src = join(repo, 'packages', 'server', 'src');
    const graph = importGraph(src);
    expect(upward(graph, src, SERVER_RANKS)).toEqual([]);
    // It can fail: the pipeline reading the route table (as it once did, for two types) is upward.
    const tried = new Map(graph);
    const pipeline = join(src, 'http', 'pipeline.ts');
    tried.set(pipeline, [...graph.get(pipeline)!, join(src, 'routes.ts')]);
    expect(upward(tried, src, SERVER_RANKS)).toEqual(['http/pipeline.ts -> routes.ts']);
  });

  it('the ledger is the bottom of the log: ledger/ imports only itself (and the built-file locator), so tlog/ and everything else sit strictly above it', () => {
    const src = join(repo, 'packages', 'server', 'src');
    const graph = importGraph(src);
    const outside: string[] = [];
    for (const [file, deps] of graph)
      if (relative(src, file).startsWith('ledger/'))
        for (const d of deps) {
          const to = relative(src, d);
          if (!to.startsWith('ledger/') && to !== 'entries.ts') outside.push(`${relative(src, file)} -> ${to}`);
        }
    expect(outside).toEqual([]);
    // And the rule can fail: tlog/ does import the ledger.
    expect(
      [...graph].some(([f, deps]) => relative(src, f).startsWith('tlog/') && deps.some((d) => relative(src, d).startsWith('ledger/'))),
    ).toBe(true);
  });

  it("the core's schemas import only TypeBox and the limits; the limits import nothing", () => {
    const src = join(repo, 'packages', 'core', 'src');
    const graph = importGraph(src);
    for (const [file, deps] of graph)
      if (relative(src, file).startsWith('schemas/'))
        for (const d of deps)
          expect(
            relative(src, d).startsWith('schemas/') || relative(src, d) === 'limits.ts',
            `${relative(src, file)} -> ${relative(src, d)}`,
          ).toBe(true);
    expect(readFileSync(join(src, 'limits.ts'), 'utf8')).not.toMatch(/^import /m);
  });

  it("a limit of the specification is defined once, in the core's limits module", () => {
    const src = join(repo, 'packages', 'core', 'src');
    const limits = readFileSync(join(src, 'limits.ts'), 'utf8');
    for (const name of ['MAX_BODY_BYTES', 'MAX_JSON_DEPTH', 'MAX_TURNS', 'MAX_ORG_LENGTH']) {
      expect(limits).toMatch(new RegExp(`export const ${name} = `));
      const defined = [...importGraph(src).keys()].filter((f) => new RegExp(`export const ${name} = `).test(readFileSync(f, 'utf8')));
      expect(defined.map((f) => relative(src, f))).toEqual(['limits.ts']);
    }
  });

  it("the server states the limits from the core's constants, never as literals", () => {
    const src = join(repo, 'packages', 'server', 'src');
    for (const f of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((x) => x.endsWith('.ts'))) {
      // Code only: comments may name a limit to explain it.
      const code = readFileSync(join(src, f), 'utf8')
        .split('\n')
        .filter((l) => !/^\s*(\/\/|\*|\/\*\*)/.test(l))
        .join('\n');
      expect(code, f).not.toMatch(/\b2 ?MB\b|\b200 turns\b|\b200 characters\b/);
    }
  });

  it('importing @svc/core/schemas loads TypeBox and the limits, no verifier and no crypto (the built entry)', () => {
    const dist = join(repo, 'packages', 'core', 'dist');
    const seen = new Set<string>();
    const external = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const m of readFileSync(join(dist, file), 'utf8').matchAll(/from ['"]([^'"]+)['"]/g))
        if (m[1]!.startsWith('./')) walk(m[1]!.slice(2));
        else external.add(m[1]!);
    };
    walk('schemas.js');
    expect([...external]).toEqual(['typebox']);
    for (const f of seen) expect(readFileSync(join(dist, f), 'utf8'), f).not.toMatch(/verifyBundle|ml_dsa|@noble/);
  });

  it('svc issue loads what signing and the ledger need: no HTTP server, pool, pipeline, metrics, logger or PostgreSQL driver (a thin composition root)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-loads-'));
    const log = join(dir, 'loads.txt');
    const cli = join(repo, 'packages', 'server', 'dist', 'cli.js');
    const hook = join(repo, 'packages', 'server', 'test', 'fixtures', 'record-loads.mjs');
    const env = { ...process.env, SVC_DATA_DIR: join(dir, 'data') };
    expect(spawnSync(process.execPath, [cli, 'keygen'], { env }).status).toBe(0);
    const r = spawnSync(process.execPath, ['--import', hook, cli, 'issue', '--answer', 'thin'], { env: { ...env, SVC_LOAD_LOG: log } });
    expect(r.status, String(r.stderr)).toBe(0);
    const loaded = readFileSync(log, 'utf8').split('\n');
    expect(loaded.some((u) => u.includes('@noble/post-quantum'))).toBe(true); // the recorder works
    expect(loaded.filter((u) => u === 'node:http' || u === 'node:https' || /node_modules\/(prom-client|pino|pg)\//.test(u))).toEqual([]);
    // The server's own modules are bundled into chunks: none it loads holds the pool or the pipeline.
    const own = loaded.filter((u) => u.includes('/packages/server/dist/')).map((u) => readFileSync(fileURLToPath(u), 'utf8'));
    expect(own.length).toBeGreaterThan(0);
    for (const text of own) expect(text).not.toMatch(/class WorkerPool|function createPipeline|function nodeHandler/);
  });

  it('one place builds an error answer (errorResponse): no other server module writes an error body or a 5xx by hand', () => {
    const src = join(repo, 'packages', 'server', 'src');
    const hand = /\.toJSON\(\)|'internal error'|writeHead\(5\d\d|status: 5\d\d|body: \{ ?error/;
    const offenders = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && f !== join('http', 'errors.ts'))
      .filter((f) => hand.test(readFileSync(join(src, f), 'utf8')));
    expect(offenders).toEqual([]);
    expect(readFileSync(join(src, 'http', 'errors.ts'), 'utf8')).toMatch(/export function errorResponse/);
  });
});
