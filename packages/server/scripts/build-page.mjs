#!/usr/bin/env node
// Bundles the verifier page into one self-contained HTML file (dist/page.html): it works served by
// the server and opened as a local file alike.
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = await build({
  entryPoints: [join(root, 'page', 'app.ts')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  legalComments: 'none',
  // @svc/core's chunks import one another bare, and the package says truly that none has side
  // effects: esbuild dropping those imports is what is wanted, and its warning is noise to a user.
  logOverride: { 'ignored-bare-import': 'silent' },
});
const js = out.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');

// One click samples of every kind: documents of the project's own test vectors (made by its
// issuer with the deterministic test keys), each with the keys its vector pins.
const SAMPLES = [
  ['proof', 'logged, no policy: passes on the inclusion path alone', 'A proof logged in a transparency log'],
  ['proof', 'v:1 bound question matches: entire-input', 'A proof with an attested question'],
  ['proof', 'excerpt in code points (astral character counts as one)', 'A proof with a pinned quote'],
  ['proof', 'legacy receipt with a question: unverified, reported not failed', 'A proof whose question is not attested'],
  ['proof', 'message form with a tool call and a disclosed request', 'A tool call, signed with the tools it was given'],
  ['proof', 'answer altered by one space: answerHashOk false', 'A tampered proof (answer changed)'],
  ['transcript', 'one altered turn fails the transcript', 'A transcript with one tampered turn'],
  ['run', 'run verifies', 'An autopilot run'],
  ['export', 'export verifies', 'A conversation export'],
  ['sth', 'bare signed tree head verifies', 'A signed tree head'],
  ['consistency', '5 -> 12 verifies', 'A consistency bundle (5 to 12 leaves)'],
  ['consistency', 'old head signed after the new one: timestampOrderOk false', 'A consistency bundle signed out of order'],
  ['record', 'record verifies unchanged', 'An AI Provenance Record'],
  ['record', 'run record verifies unchanged', 'An AI Provenance Record of a run'],
];
const vectors = join(root, '..', '..', 'test-vectors');
const keySets = [];
const items = SAMPLES.map(([file, description, label]) => {
  const cases = JSON.parse(readFileSync(join(vectors, `${file}.json`), 'utf8')).cases;
  const c = cases.find((x) => x.description.startsWith(description));
  if (!c) throw new Error(`build-page: no ${file} vector "${description}"`);
  const keys = JSON.stringify(c.trustedKeys ?? []);
  let k = keySets.indexOf(keys);
  if (k < 0) k = keySets.push(keys) - 1;
  return { label, document: c.input, keys: k };
});
const samples = JSON.stringify({ keySets: keySets.map((k) => JSON.parse(k)), items }).replace(/</g, '\\u003c');
let html = readFileSync(join(root, 'page', 'page.html'), 'utf8')
  .replace('/*__SAMPLES__*/', () => samples)
  .replace('/*__APP__*/', () => js);
// The page's policy allows exactly its own inline script and style, by hash: no 'unsafe-inline'.
// The server sends the same policy as a header (with frame-ancestors, which a meta tag cannot carry).
const hashes = (tag) =>
  [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map(
    (m) => `'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`,
  );
const csp = [
  "default-src 'none'",
  `script-src ${hashes('script').join(' ')}`,
  `style-src ${hashes('style').join(' ')}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
html = html.replace('/*__CSP__*/', () => csp);
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist', 'page.html'), html);
console.log(`page.html: ${(html.length / 1024).toFixed(0)} KiB`);
