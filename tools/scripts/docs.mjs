#!/usr/bin/env node
// npm run docs: the API reference of @svc/core and @svc/server (TypeDoc, into docs/api/), built with
// warnings as errors, then checked: every public export has a summary and an @example, and every
// example parses and type-checks against the built declarations (tools/lib/example-check.mjs: the
// names a reader brings are declared `any`, everything the packages export is checked).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { root } from '../lib/root.mjs';
import { checkExamples } from '../lib/example-check.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'svc-docs-'));
const json = join(tmp, 'api.json');
const r = spawnSync(process.execPath, [join(root, 'node_modules/typedoc/bin/typedoc'), '--json', json], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  console.error('typedoc failed (warnings count as errors)');
  process.exit(1);
}
const project = JSON.parse(readFileSync(json, 'utf8'));
rmSync(tmp, { recursive: true, force: true });

// Reflection kinds: Project 1, Module 2, Namespace 4 hold exports; everything else below them is one.
const REFERENCE = 4194304;
const comments = (c) => [c.comment, ...(c.signatures ?? []).map((s) => s.comment)].filter(Boolean);
const missing = [];
const typed = [];
let exports = 0;
function visit(node, path) {
  for (const c of node.children ?? []) {
    if ([1, 2, 4].includes(c.kind)) {
      visit(c, `${path}${c.name}/`);
      continue;
    }
    // A re-export of a declaration another entry documents (@svc/core/merkle gathers the tree's):
    // its documentation is checked where it is declared.
    if (c.kind === REFERENCE) continue;
    exports++;
    const cs = comments(c);
    if (!cs.some((cm) => (cm.summary ?? []).some((p) => p.text.trim()))) missing.push(`${path}${c.name}: no summary`);
    const examples = cs.flatMap((cm) => (cm.blockTags ?? []).filter((t) => t.tag === '@example'));
    if (!examples.length) missing.push(`${path}${c.name}: no @example`);
    for (const ex of examples) {
      const code = ex.content
        .map((p) => p.text)
        .join('')
        .replace(/^\s*```\w*\n?|```\s*$/g, '');
      const out = ts.transpileModule(code, {
        reportDiagnostics: true,
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      for (const d of out.diagnostics ?? [])
        missing.push(`${path}${c.name}: example does not parse: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
      if (!out.diagnostics?.length) typed.push({ where: `${path}${c.name}`, code });
    }
  }
}
visit(project, '');
missing.push(...checkExamples(typed));
// The landing page (docs/api-index.md) tells a reader what to import for each job, linked.
const landing = readFileSync(join(root, 'docs', 'api', 'index.html'), 'utf8');
for (const name of [
  'verifyBundle',
  'SvcError',
  'buildRecord',
  'issueProof',
  'verifyTlogProof',
  'TileReader',
  'testKeys',
  'proofBundle',
  'startServer',
  'openIssuer',
])
  if (!new RegExp(`href="[^"]*\\.${name}\\.html"`).test(landing)) missing.push(`the landing page does not link ${name}`);
if (missing.length) {
  console.error(`${missing.length} public exports lack documentation or have a broken example:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
console.log(`docs/api: ${exports} public exports, each with a summary and an example`);
