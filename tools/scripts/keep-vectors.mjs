#!/usr/bin/env node
// Keeps documents the current build makes, unchanged, for later versions to verify (issue 54:
// "records and bundles made by the last landed version still verify"). test-vectors/*.json are
// regenerated whenever a format changes, so they cannot show that an older document still
// verifies; a file under test-vectors/kept/ is written once and never again, and kept.test.ts
// verifies each of its documents as its intent says with the code of the day.
// `node tools/scripts/keep-vectors.mjs NAME`: writes test-vectors/kept/NAME.json from the cases
// of test-vectors/*.json that PICK names, with `expected` left out (an answer may gain members;
// the intent may not change). Refuses to overwrite.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../lib/root.mjs';

/** Per vector file, the verifying cases kept: one per feature a document can carry. */
const PICK = {
  'proof.json': [
    'logged (tlogProof), 2-of-3 policy: passes, log recognised, three witnesses, quorum met',
    'plain answer, pinned key: passes and is recognised',
    'v:1 bound question matches: entire-input',
    'legacy receipt with a question: unverified, reported not failed',
    'v:2 framing with flags: current-message, flags disclosed',
    'message form with a tool call and a disclosed request: verdict.message, receipt.request',
    'excerpt in code points (astral character counts as one)',
    'bridge: ML-DSA-87 primary + Falcon-1024 co-signature, keys pinned',
    'SLH-DSA-SHA2-256f diversity signature verifies, key pinned',
    'a deployment named acme verifies its own kind and contexts',
    'enveloped (JWS and COSE, ML-DSA-87 and Ed25519), checked: passes, each envelope reported',
  ],
  'record.json': [
    'record verifies unchanged',
    'run record verifies unchanged',
    'record carrying the 2025 edition of the table (no Code of Practice rows) verifies unchanged',
  ],
  'run.json': ['run verifies'],
  'export.json': ['export verifies'],
  'transcript.json': [
    'three turns, all verify',
    'a turn with a question no receipt binds: passes, and the transcript reports promptUnverified',
  ],
  'sth.json': ['bare signed tree head verifies'],
  'consistency.json': ['5 -> 12 verifies'],
};

const name = process.argv[2];
if (!name || !/^[a-z0-9.-]+$/.test(name)) {
  console.error('usage: keep-vectors.mjs NAME (lower-case letters, digits, dots and dashes)');
  process.exit(2);
}
const file = join(root, 'test-vectors', 'kept', `${name}.json`);
if (existsSync(file)) {
  console.error(`keep-vectors: ${file} exists, and a kept file is never rewritten`);
  process.exit(1);
}
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const cases = [];
for (const [vectors, descriptions] of Object.entries(PICK)) {
  const all = JSON.parse(readFileSync(join(root, 'test-vectors', vectors), 'utf8')).cases;
  for (const d of descriptions) {
    const c = all.find((x) => x.description.startsWith(d));
    if (c?.intent.overallOk !== true) throw new Error(`${vectors}: no verifying case "${d}"`);
    const kept = { ...c, description: `${vectors.replace('.json', '')}: ${c.description}` };
    delete kept.expected;
    cases.push(kept);
  }
}
const description =
  `Documents made by @svc/core at ${commit}, kept unchanged: every later version must verify each ` +
  'as its intent says. Never regenerated; a new set is a new file.';
writeFileSync(file, `${JSON.stringify({ description, made_at: commit, format: 1, cases }, null, 1)}\n`);
console.log(`kept: ${file} (${cases.length} cases)`);
