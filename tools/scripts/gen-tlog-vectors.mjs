#!/usr/bin/env node
// Generates test-vectors/tlog/*.json deterministically (fixed seeds, deterministic signatures) with
// the built @svc/core/tlog: verifier keys, signed notes and checkpoints with every signature type
// this project reads, a small tiled log, and tlog-proofs with single mutations. Each case declares
// its intent; a case whose computed answer contradicts its intent stops the generator.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, toHex, utf8 } from '@svc/core/primitives';
import { MemoryTree, inclusionProof, leafHash, treeRoot } from '@svc/core/merkle';
import { rangeHash, subtreeProof } from '@svc/core/merkle';
import * as t from '@svc/core/tlog';
import { root as repoRoot } from '../lib/root.mjs';

const out = join(repoRoot, 'test-vectors', 'tlog');
mkdirSync(out, { recursive: true });
const seed = (s) => sha256(utf8(`svc-tlog-vectors/${s}`));
const ORIGIN = 'example.test/svc-vectors';
const TS = 1_767_225_600; // 2026-01-01T00:00:00Z
const log = {
  mldsa44: t.noteSigner(ORIGIN, t.logKeygen('subtree/v1', seed('log-mldsa44'))),
  mldsa87: t.noteSigner(ORIGIN, t.logKeygen('mldsa87-subtree', seed('log-mldsa87'))),
  ed25519: t.noteSigner(ORIGIN, t.logKeygen('ed25519', seed('log-ed25519'))),
};
const witness = {
  mldsa44: t.noteSigner('witness.example.test/w1', t.logKeygen('subtree/v1', seed('w1'))),
  ed25519: t.noteSigner('witness.example.test/w2', t.logKeygen('cosignature/v1', seed('w2'))),
};
const b64 = (b) => Buffer.from(b).toString('base64');

function check(cond, what) {
  if (!cond) throw new Error(`vector contradicts its intent: ${what}`);
}

function opens(note, vkeys) {
  try {
    return { opens: true, verified: t.openNote(note, vkeys.map(t.parseVkey)).verified.map((v) => v.vkey) };
  } catch (e) {
    if (!(e instanceof t.TlogError)) throw e;
    return { opens: false, code: e.code };
  }
}

/** The note with the last character before its final '=' padding changed to set a padding bit. */
function nonCanonical(note) {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const i = note.lastIndexOf('=') - 1;
  check(note[i + 1] === '=' && note[i + 2] === '\n', 'the Ed25519 line ends in one padding character');
  return note.slice(0, i) + A[A.indexOf(note[i]) ^ 1] + note.slice(i + 1);
}

// --- vkeys ---
const vkeyCases = [
  ...Object.values(log).map((s) => ({
    description: `log key, ${s.type}`,
    vkey: s.vkey,
    intent: { valid: true, type: s.type, name: ORIGIN },
  })),
  ...Object.values(witness).map((s) => ({
    description: `witness key, ${s.type}`,
    vkey: s.vkey,
    intent: { valid: true, type: s.type, name: s.name },
  })),
  {
    description: 'key ID that is not the hash of name, type and key',
    vkey: log.ed25519.vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+'),
    intent: { valid: false, code: 'malformed_vkey' },
  },
  {
    description: 'unknown signature type 0x02 (ECDSA) is not read here',
    vkey: `${ORIGIN}+12345678+${b64(new Uint8Array([2, ...new Uint8Array(32)]))}`,
    intent: { valid: false, code: 'malformed_vkey' },
  },
  {
    description: 'Ed25519 key of 31 bytes',
    vkey: `${ORIGIN}+12345678+${b64(new Uint8Array([1, ...new Uint8Array(31)]))}`,
    intent: { valid: false, code: 'malformed_vkey' },
  },
  {
    description: 'a name with a space',
    vkey: log.ed25519.vkey.replace(ORIGIN, 'bad name'),
    intent: { valid: false, code: 'malformed_vkey' },
  },
];
for (const c of vkeyCases) {
  let got;
  try {
    const v = t.parseVkey(c.vkey);
    got = { valid: true, type: v.type, name: v.name };
  } catch (e) {
    got = { valid: false, code: e.code };
  }
  check(JSON.stringify(got) === JSON.stringify(c.intent), c.description);
}

// --- notes and checkpoints ---
const text = t.formatCheckpoint({ origin: ORIGIN, size: 300, root: sha256(utf8('vector root')), extensions: [] });
const all = [log.mldsa44, log.mldsa87, log.ed25519];
const signed = t.signNote(text, all, TS);
const cosigned = signed + t.signNote(text, [witness.mldsa44, witness.ed25519], TS + 60).slice(text.length + 1);
const sigLines = signed.slice(text.length + 1);
const allVkeys = [...all, ...Object.values(witness)].map((s) => s.vkey);
const noteCases = [
  {
    description: 'checkpoint signed by the three log keys, opened with all three',
    note: signed,
    vkeys: all.map((s) => s.vkey),
    intent: { opens: true, verified: all.map((s) => s.vkey) },
  },
  {
    description: 'opened with the ML-DSA-44 key alone (what a standard client holds)',
    note: signed,
    vkeys: [log.mldsa44.vkey],
    intent: { opens: true, verified: [log.mldsa44.vkey] },
  },
  {
    description: 'cosigned by two witnesses (subtree/v1 and cosignature/v1, one minute later)',
    note: cosigned,
    vkeys: allVkeys,
    intent: { opens: true, verified: allVkeys },
  },
  {
    description: 'only unknown keys: no signature by a known key',
    note: signed,
    vkeys: Object.values(witness).map((s) => s.vkey),
    intent: { opens: false, code: 'unverified' },
  },
  {
    description: 'tree size changed after signing',
    note: signed.replace('\n300\n', '\n301\n'),
    vkeys: [log.ed25519.vkey],
    intent: { opens: false, code: 'unverified' },
  },
  {
    description: 'an extension line added: Ed25519 signs it (fails), subtree/v1 does not (still verifies)',
    note: signed.replace(text, `${text}ext\n`),
    vkeys: [log.mldsa44.vkey],
    intent: { opens: true, verified: [log.mldsa44.vkey] },
  },
  {
    description: 'an extension line added, opened with the Ed25519 key',
    note: signed.replace(text, `${text}ext\n`),
    vkeys: [log.ed25519.vkey],
    intent: { opens: false, code: 'unverified' },
  },
  {
    description: 'no blank line before the signatures',
    note: text + sigLines,
    vkeys: [log.ed25519.vkey],
    intent: { opens: false, code: 'malformed_note' },
  },
  {
    description: 'a tab (control character) in the text',
    note: signed.replace(ORIGIN, `${ORIGIN}\t`),
    vkeys: [log.ed25519.vkey],
    intent: { opens: false, code: 'malformed_note' },
  },
  {
    description: 'no final newline',
    note: signed.slice(0, -1),
    vkeys: [log.ed25519.vkey],
    intent: { opens: false, code: 'malformed_note' },
  },
  {
    description: 'signature base64 not canonical (a padding bit set)',
    note: nonCanonical(signed),
    vkeys: [log.ed25519.vkey],
    intent: { opens: false, code: 'malformed_note' },
  },
];
for (const c of noteCases) {
  const got = opens(c.note, c.vkeys);
  check(got.opens === c.intent.opens, `${c.description}: opens`);
  if (c.intent.verified) check(JSON.stringify(got.verified) === JSON.stringify(c.intent.verified), `${c.description}: verified`);
  if (c.intent.code) check(got.code === c.intent.code, `${c.description}: ${got.code}`);
}
writeFileSync(
  join(out, 'notes.json'),
  `${JSON.stringify(
    {
      description:
        'Verifier keys and signed notes (c2sp.org/signed-note, tlog-checkpoint, tlog-cosignature). The ML-DSA-87 type is 0xff || "svc-mldsa87-subtree/v1\\n" (docs/wire-format.md). Timestamps are POSIX seconds.',
      vkeys: vkeyCases,
      notes: noteCases,
    },
    null,
    2,
  )}\n`,
);

// --- tiles ---
const SIZE = 300;
const leaves = Array.from({ length: SIZE }, (_, i) => sha256(utf8(`vector leaf ${i}`)));
const tree = new MemoryTree();
for (const l of leaves) tree.appendData(l);
const tiles = {};
for (const id of [
  { level: 0, index: 0, width: 256 },
  { level: 0, index: 1, width: 44 },
  { level: 1, index: 0, width: 1 },
]) {
  tiles[t.tilePath(id)] = toHex(t.encodeTile(t.tileNodes(id.level, id.index, id.width).map((n) => tree.subtree(n.level, n.index))));
}
tiles['tile/entries/000'] = toHex(t.encodeEntryBundle(leaves.slice(0, 256)));
tiles['tile/entries/001.p/44'] = toHex(t.encodeEntryBundle(leaves.slice(256)));
const root = treeRoot(tree, SIZE);
const tileCheckpoint = t.signNote(t.formatCheckpoint({ origin: ORIGIN, size: SIZE, root, extensions: [] }), all, TS);
writeFileSync(
  join(out, 'tiles.json'),
  `${JSON.stringify(
    {
      description:
        'A tiled log of 300 leaves (c2sp.org/tlog-tiles): every tile and entry bundle a reader needs, hex-encoded, and the signed checkpoint they must authenticate against. Leaves are 32-byte SHA-256 answer hashes; entry bundles prefix each with its big-endian uint16 length.',
      intent: 'every tile hashes to the checkpoint root; every entry hashes (RFC 6962 leaf hash) to its level-0 tile hash',
      checkpoint: tileCheckpoint,
      vkeys: all.map((s) => s.vkey),
      leaves: leaves.map(toHex),
      tiles,
    },
    null,
    2,
  )}\n`,
);

// --- tlog-proofs ---
const INDEX = 123;
const proofText = t.formatTlogProof({ index: INDEX, proof: inclusionProof(tree, INDEX, SIZE), checkpoint: tileCheckpoint });
const leaf = toHex(leafHash(leaves[INDEX]));
const lines = proofText.split('\n');
const swap = (i, v) => lines.map((l, j) => (j === i ? v : l)).join('\n');
const proofCases = [
  { description: 'entry 123 of 300, checkpoint with three log signatures', proof: proofText, intent: { valid: true, index: INDEX } },
  {
    description: 'with an extra line (not authenticated, kept)',
    proof: proofText.replace('\nindex ', `\nextra ${b64(utf8('context'))}\nindex `),
    intent: { valid: true, index: INDEX },
  },
  {
    description: 'index changed to 122',
    proof: proofText.replace(`index ${INDEX}`, 'index 122'),
    intent: { valid: false, code: 'proof_failed' },
  },
  { description: 'first path hash changed', proof: swap(2, b64(sha256(utf8('x')))), intent: { valid: false, code: 'proof_failed' } },
  { description: 'a path hash removed', proof: lines.filter((_, j) => j !== 3).join('\n'), intent: { valid: false, code: 'proof_failed' } },
  {
    description: 'checkpoint size changed',
    proof: proofText.replace(`\n${SIZE}\n`, `\n${SIZE + 1}\n`),
    intent: { valid: false, code: 'unverified' },
  },
  {
    description: 'first header line wrong',
    proof: proofText.replace('c2sp.org/tlog-proof@v1', 'c2sp.org/tlog-proof@v2'),
    intent: { valid: false, code: 'malformed_proof' },
  },
  {
    description: 'index with a leading zero',
    proof: proofText.replace(`index ${INDEX}`, `index 0${INDEX}`),
    intent: { valid: false, code: 'malformed_proof' },
  },
];
for (const c of proofCases) {
  let got;
  try {
    got = { valid: true, index: t.verifyTlogProof(c.proof, leafHash(leaves[INDEX]), { origin: ORIGIN, logKeys: all }).index };
  } catch (e) {
    got = { valid: false, code: e.code };
  }
  check(JSON.stringify(got) === JSON.stringify(c.intent), `${c.description}: ${JSON.stringify(got)}`);
}
writeFileSync(
  join(out, 'tlog-proof.json'),
  `${JSON.stringify(
    {
      description:
        'c2sp.org/tlog-proof@v1 for entry 123 of the tiles.json log, and single mutations. Verify with the leaf hash, the origin and the log vkeys.',
      origin: ORIGIN,
      leaf_hash: leaf,
      vkeys: all.map((s) => s.vkey),
      cases: proofCases,
    },
    null,
    2,
  )}\n`,
);
// --- sign-subtree (tlog-witness) and its subtree/v1 cosignature, timestamp 0 ---
const subTree = new MemoryTree();
for (let i = 0; i < 14; i++) subTree.appendData(utf8(`entry ${i}`));
const subText = t.formatCheckpoint({ origin: ORIGIN, size: 14, root: treeRoot(subTree, 14), extensions: [] });
const subCosigned = t.signNote(subText, [log.ed25519, witness.mldsa44], TS);
const subOnlyLog = t.signNote(subText, [log.ed25519], TS);
const subBody = (start, end, over = {}) =>
  t.formatSignSubtree({
    start,
    end,
    hash: rangeHash(subTree, start, end),
    proof: subtreeProof(subTree, start, end, 14),
    checkpoint: subCosigned,
    ...over,
  });
const subCases = [
  { description: 'subtree 8 13 of the 14-leaf checkpoint (the spec example shape)', body: subBody(8, 13), intent: 200 },
  { description: 'subtree 4 8', body: subBody(4, 8), intent: 200 },
  { description: 'the whole tree', body: subBody(0, 14), intent: 200 },
  { description: '[9, 13) is not a subtree', body: subBody(8, 13).replace('subtree 8 13', 'subtree 9 13'), intent: 400 },
  { description: 'ends past the checkpoint', body: subBody(8, 13).replace('subtree 8 13', 'subtree 8 15'), intent: 400 },
  { description: 'a leading zero', body: subBody(8, 13).replace('subtree 8 13', 'subtree 08 13'), intent: 400 },
  { description: 'only the log signed the checkpoint', body: subBody(8, 13, { checkpoint: subOnlyLog }), intent: 403 },
  { description: 'the hash of [8, 12) for [8, 13)', body: subBody(8, 13, { hash: rangeHash(subTree, 8, 12) }), intent: 422 },
  { description: 'the proof of [8, 13) in the tree of 13', body: subBody(8, 13, { proof: subtreeProof(subTree, 8, 13, 13) }), intent: 422 },
];
const subWitness = [witness.mldsa44];
for (const c of subCases) {
  const a = t.decideSignSubtree(c.body, (o) => o === ORIGIN, subWitness);
  check(a.status === c.intent, `${c.description}: ${a.status} ${a.body}`);
  if (a.status === 200) {
    c.response = a.body;
    c.cosigned_message_hex = toHex(t.cosignedMessage(witness.mldsa44.name, 0, a.subtree));
  }
}
check(t.decideSignSubtree(subBody(8, 13), (o) => o !== ORIGIN, subWitness).status === 404, 'an unknown origin is 404');
writeFileSync(
  join(out, 'sign-subtree.json'),
  `${JSON.stringify(
    {
      description:
        'c2sp.org/tlog-witness sign-subtree requests against a witness that witnesses the origin and holds the ML-DSA-44 key below, and its answers: the status, and for 200 the subtree/v1 line (timestamp 0, deterministic ML-DSA-44) and the exact cosigned_message it signs. Leaves: "entry 0" .. "entry 13".',
      origin: ORIGIN,
      log_vkey: log.ed25519.vkey,
      witness_vkey: witness.mldsa44.vkey,
      cases: subCases,
    },
    null,
    2,
  )}\n`,
);
// --- tlog-mirror add-entries bodies ---
const mirrorEntries = Array.from({ length: 600 }, (_, i) => utf8(`mirrored entry ${i}`));
const mirrorTree = new MemoryTree();
for (const e of mirrorEntries) mirrorTree.appendData(e);
const uploads = [
  { description: 'entries [300, 600): a package from 300 (its subtree from 256) and one from 512', start: 300, end: 600 },
  { description: 'the same upload, cut after its first package (a prefix: the mirror answers 202)', start: 300, end: 600, packages: 1 },
  { description: 'entries [0, 256): one full package, whose subtree proof is the right part of the tree', start: 0, end: 256 },
  { description: 'an empty upload [600, 600): the header alone', start: 600, end: 600 },
].map((u) => {
  const body = t.formatAddEntries(
    { origin: ORIGIN, start: u.start, end: u.end, ticket: utf8('ticket') },
    (i) => mirrorEntries[i],
    mirrorTree,
    u.packages,
  );
  const r = new t.AddEntriesReader();
  r.push(body);
  const packages = [];
  for (let p = r.next(); p; p = r.next()) {
    const held = Array.from({ length: p.start - p.subtreeStart }, (_, k) => mirrorTree.subtree(0, p.subtreeStart + k));
    check(t.verifyPackage(p, held, { size: u.end, root: treeRoot(mirrorTree, u.end) }), `${u.description}: package ${p.start} verifies`);
    packages.push({ subtree_start: p.subtreeStart, start: p.start, end: p.end, proof_hashes: p.proof.length });
  }
  check(r.pending === 0, `${u.description}: no bytes left over`);
  return {
    description: u.description,
    upload_start: u.start,
    upload_end: u.end,
    body_base64: b64(body),
    packages,
    complete: r.packages.complete,
  };
});
writeFileSync(
  join(out, 'add-entries.json'),
  `${JSON.stringify(
    {
      description:
        'c2sp.org/tlog-mirror add-entries request bodies for a log of 600 entries ("mirrored entry 0" .. "mirrored entry 599", each its UTF-8 bytes), ticket "ticket". Each package verifies against the checkpoint of size upload_end with the leaf hashes of [subtree_start, start) taken from the log.',
      origin: ORIGIN,
      roots: Object.fromEntries([256, 600].map((n) => [n, b64(treeRoot(mirrorTree, n))])),
      uploads,
    },
    null,
    2,
  )}\n`,
);
// --- tlog-mirror: mirror-info bodies, and add-entries headers against a mirror state ---
// The expected statuses are written here from the spec's text (its "Processing" list, in order);
// the generator checks the core agrees before it writes them.
const mirrorState = {
  pending: [600, 300],
  mirrored: 256,
  next: 512,
};
const uploadCases = [
  { description: 'a log the mirror does not mirror', known: false, start: 0, end: 600, status: 404 },
  { description: 'no pending checkpoint received yet', pending: [], start: 0, end: 600, status: 422 },
  {
    description: 'upload_end neither a pending size kept nor the mirror checkpoint',
    start: 512,
    end: 700,
    status: 409,
    info: { size: 600, next: 512 },
  },
  {
    description: 'upload_end below the mirror checkpoint, though once pending',
    mirrored: 400,
    start: 300,
    end: 300,
    status: 409,
    info: { size: 600, next: 512 },
  },
  { description: 'upload_start past the next entry', start: 513, end: 600, status: 409, info: { size: 600, next: 512 } },
  { description: 'more than 256 entries the mirror holds resent', start: 255, end: 600, status: 409, info: { size: 600, next: 512 } },
  {
    description: 'exactly 256 entries resent: proceed against the pending checkpoint of 600',
    start: 256,
    end: 600,
    status: 'proceed',
    against: 600,
  },
  { description: 'an older pending checkpoint is still a valid upload_end', start: 300, end: 300, status: 'proceed', against: 300 },
  { description: "the mirror checkpoint's size is a valid upload_end", start: 256, end: 256, status: 'proceed', against: 256 },
].map((c) => {
  const root = (n) => treeRoot(mirrorTree, n);
  const state = {
    pending: (c.pending ?? mirrorState.pending).map((n) => ({ size: n, root: root(n) })),
    mirrored: { size: c.mirrored ?? mirrorState.mirrored, root: root(c.mirrored ?? mirrorState.mirrored) },
    next: mirrorState.next,
  };
  const got = t.checkUpload(
    { origin: ORIGIN, start: c.start, end: c.end, ticket: new Uint8Array(0) },
    c.known === false ? undefined : state,
  );
  const want = c.status === 'proceed' ? got.ok && got.checkpoint.size === c.against : !got.ok && got.status === c.status;
  check(want, `${c.description}: the core decides ${JSON.stringify(got.ok ? 'proceed' : got.status)}`);
  if (c.info) check(got.body === `${c.info.size}\n${c.info.next}\n\n`, `${c.description}: its mirror-info`);
  return {
    description: c.description,
    state:
      c.known === false ? null : { pending_sizes: state.pending.map((p) => p.size), mirrored_size: state.mirrored.size, next: state.next },
    upload_start: c.start,
    upload_end: c.end,
    status: c.status,
    ...(c.info ? { mirror_info: `${c.info.size}\n${c.info.next}\n\n` } : {}),
    ...(c.against !== undefined ? { proves_into_size: c.against } : {}),
  };
});
const infoCases = [
  ['600\n512\n\n', { size: 600, next: 512, ticket: '' }],
  ['0\n0\ndGlja2V0\n', { size: 0, next: 0, ticket: 'dGlja2V0' }],
  ['600\n512\n', null],
  ['0600\n512\n\n', null],
  ['600\n512\nAAF=\n', null],
  ['9007199254740992\n0\n\n', null],
  ['600\r\n512\n\n', null],
].map(([text, want]) => {
  let got = null;
  try {
    const i = t.parseMirrorInfo(text);
    got = { size: i.size, next: i.next, ticket: b64(i.ticket) };
  } catch {}
  check(JSON.stringify(got) === JSON.stringify(want), `mirror-info ${JSON.stringify(text)}`);
  return { text, valid: want !== null, ...(want ? { parsed: want } : {}) };
});
writeFileSync(
  join(out, 'mirror.json'),
  `${JSON.stringify(
    {
      description:
        'c2sp.org/tlog-mirror decisions: add-entries headers against a mirror state (pending checkpoint sizes kept, newest first; the mirror checkpoint size; the next entry), each with the status the spec requires or "proceed" and the checkpoint size its packages must prove into; mirror-info bodies with whether they are valid (strict: canonical decimals below 2^53, canonical padded base64). A mirror accepts at most 256 entries it already holds (this implementation\'s bound). Roots are those of the add-entries log ("mirrored entry i").',
      origin: ORIGIN,
      uploads: uploadCases,
      mirror_info: infoCases,
    },
    null,
    2,
  )}\n`,
);
console.log(
  `wrote ${vkeyCases.length} vkeys, ${noteCases.length} notes, ${Object.keys(tiles).length} tiles, ${proofCases.length} tlog-proofs, ${subCases.length} sign-subtree requests, ${uploads.length} add-entries bodies, ${uploadCases.length} mirror uploads, ${infoCases.length} mirror-info bodies`,
);
