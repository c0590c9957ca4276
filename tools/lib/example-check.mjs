// Type-checks the @example blocks of the API reference against the built declarations. An example
// uses names a reader brings (`text`, `trustedKeys`, `base`): those are declared `any`, and what is
// left is checked as a user's code is, so a renamed export, a wrong option, a missing argument or
// a member a result does not have fails the docs step. Each example sees every export of the
// packages by name (its own entry's first), as a reader who imported them would.
import { join } from 'node:path';
import ts from 'typescript';
import { packageEntries } from './entries.mjs';
import { root } from './root.mjs';

const OPTIONS = {
  noEmit: true,
  strict: true,
  skipLibCheck: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  // No DOM: its globals (`status`, `name`, `origin`) would stand for a reader's own names; @types/node has fetch.
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  // A callback's parameters in an example are often a reader's any-typed values' own.
  noImplicitAny: false,
};
// "Cannot find name" (and its variants for a runtime's globals, Bun and Deno; a shorthand property
// with no value): the reader's own names.
const UNBOUND = new Set([2304, 2552, 2580, 2581, 2582, 2591, 2592, 2593, 2867, 2868, 18004]);

/** Every entry of both packages (`@svc/core`, `@svc/core/tlog`, ..., `@svc/server`) with its export names. */
export function entryNames() {
  const out = new Map();
  for (const pkg of ['core', 'server']) {
    const { entries, checker } = packageEntries(pkg);
    for (const e of entries) out.set(e.spec, e.module ? checker.getExportsOfModule(e.module).map((s) => s.name) : []);
  }
  return out;
}

function preamble(entries, own, declared) {
  const taken = new Set(declared);
  const lines = [];
  for (const spec of [own, ...[...entries.keys()].filter((e) => e !== own)]) {
    const names = (entries.get(spec) ?? []).filter((n) => !taken.has(n));
    for (const n of names) taken.add(n);
    if (names.length) lines.push(`import { ${names.join(', ')} } from '${spec}';`);
  }
  return lines;
}

/**
 * `examples`: { where (`@svc/core/tlog/parseCheckpoint`), code }. Returns a line per example that does not type-check, each
 * naming its export and the first error.
 */
export function checkExamples(examples) {
  const entries = entryNames();
  // The entry an export is documented in: the longest entry name its path starts with.
  const specs = [...entries.keys()].sort((a, b) => b.length - a.length);
  const entryOf = (where) => specs.find((s) => where.startsWith(`${s}/`)) ?? '@svc/core';
  const dir = join(root, 'packages', 'server', '.examples');
  const files = new Map();
  const render = (ex, i, unbound) => {
    // Names the example declares itself must not be imported: a TypeScript parse gives them.
    const sf = ts.createSourceFile('x.ts', ex.code, ts.ScriptTarget.ES2022, true);
    const declared = new Set();
    const collect = (n) => {
      if ((ts.isVariableDeclaration(n) || ts.isFunctionDeclaration(n) || ts.isClassDeclaration(n)) && n.name && ts.isIdentifier(n.name))
        declared.add(n.name.text);
      if ((ts.isBindingElement(n) || ts.isImportSpecifier(n) || ts.isNamespaceImport(n)) && ts.isIdentifier(n.name))
        declared.add(n.name.text);
      if (ts.isImportClause(n) && n.name) declared.add(n.name.text);
      ts.forEachChild(n, collect);
    };
    collect(sf);
    // An example is a fragment of a reader's code, often of a function (it may `return`): its
    // imports go first, the rest into an async function.
    const lines = ex.code.split('\n');
    const imports = lines.filter((l) => /^import\s/.test(l));
    const body = lines.map((l) => (/^import\s/.test(l) ? '' : l));
    const head = [
      ...imports,
      ...preamble(entries, entryOf(ex.where), declared),
      ...[...unbound].map((n) => `declare const ${n}: any;`),
      'export async function example() {',
    ];
    const text = `${head.join('\n')}\n${body.join('\n')}\n}\n`;
    files.set(join(dir, `e${i}.ts`), { text, offset: head.length });
  };
  const run = () => {
    const host = ts.createCompilerHost(OPTIONS);
    const read = host.readFile.bind(host);
    const exists = host.fileExists.bind(host);
    host.readFile = (f) => files.get(f)?.text ?? read(f);
    host.fileExists = (f) => files.has(f) || exists(f);
    const getSource = host.getSourceFile.bind(host);
    host.getSourceFile = (f, lang, ...rest) =>
      files.has(f) ? ts.createSourceFile(f, files.get(f).text, lang, true) : getSource(f, lang, ...rest);
    const program = ts.createProgram([...files.keys()], OPTIONS, host);
    return [...files.keys()].map((f) => ts.getPreEmitDiagnostics(program, program.getSourceFile(f)));
  };
  for (const [i, ex] of examples.entries()) render(ex, i, []);
  const first = run();
  examples.forEach((ex, i) => {
    const unbound = new Set();
    for (const d of first[i])
      if (UNBOUND.has(d.code) && d.file && d.start !== undefined) {
        const m = /'([^']+)'/.exec(ts.flattenDiagnosticMessageText(d.messageText, ' '));
        if (m) unbound.add(m[1]);
      }
    render(ex, i, unbound);
  });
  const second = run();
  const failed = [];
  examples.forEach((ex, i) => {
    const d = second[i][0];
    if (!d) return;
    // The example's own line: the file's (1-based) less the lines put before the example.
    const { offset } = files.get(join(dir, `e${i}.ts`));
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 - offset : 0;
    failed.push(`${ex.where}: example line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  });
  return failed;
}
