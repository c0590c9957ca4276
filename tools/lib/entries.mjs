// The published entries of a package, read from its built declarations as a user's editor reads
// them: for the API report (tools/scripts/api-report.mjs) and the examples' type check
// (tools/lib/example-check.mjs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { root } from './root.mjs';

const OPTIONS = {
  noEmit: true,
  skipLibCheck: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
};

/** A program over declaration files, and each file's module symbol (undefined where none). */
export function loadDeclarations(files) {
  const program = ts.createProgram(files, OPTIONS);
  const checker = program.getTypeChecker();
  const modules = files.map((f) => {
    const source = program.getSourceFile(f);
    return source && checker.getSymbolAtLocation(source);
  });
  return { checker, modules };
}

/**
 * `packages/<pkg>`: its folder, its manifest, and each entry with types (`.`, `./tlog`, ...) as
 * `{ sub, spec ('@svc/core/tlog'), file, module }`, with the checker that read them.
 */
export function packageEntries(pkg) {
  const dir = join(root, 'packages', pkg);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const listed = Object.entries(manifest.exports).filter(([, v]) => typeof v === 'object' && v.types);
  const files = listed.map(([, v]) => join(dir, v.types));
  const { checker, modules } = loadDeclarations(files);
  const entries = listed.map(([sub], i) => ({
    sub,
    spec: sub === '.' ? manifest.name : `${manifest.name}/${sub.slice(2)}`,
    file: files[i],
    module: modules[i],
  }));
  return { dir, manifest, entries, checker };
}
