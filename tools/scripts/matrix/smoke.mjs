// Runs in every runtime of the matrix against the packed @svc/core: replays every test vector and
// times verification, printing one JSON line. `vectors` is injected by the caller (a module next
// to this one), so the same file works in Node, Bun, Deno, workerd and a browser.
import { defaultCrypto, nobleBackend, verifyBundle, SvcError } from '@svc/core';
import { fromHex } from '@svc/core/primitives';
import { TileReader, logPolicy, openNote, parseCheckpoint, parseVkey, verifyTlogProof } from '@svc/core/tlog';
import { envelopeChecker } from '@svc/core/envelope';
import vectors, { tlog } from './vectors.mjs';

/** The C2SP vectors: each case's declared intent against @svc/core/tlog; returns [passed, failed descriptions]. */
async function tlogCases() {
  const failed = [];
  let passed = 0;
  const judge = (description, f, intendedOk, code) => {
    let ok;
    let got;
    try {
      f();
      ok = true;
    } catch (e) {
      ok = false;
      got = e.code;
    }
    if (ok === intendedOk && (ok || got === code)) passed++;
    else failed.push(description);
  };
  for (const c of tlog.notes.vkeys) judge(c.description, () => parseVkey(c.vkey), c.intent.valid, c.intent.code);
  for (const c of tlog.notes.notes) judge(c.description, () => openNote(c.note, c.vkeys.map(parseVkey)), c.intent.opens, c.intent.code);
  const p = tlog['tlog-proof'];
  for (const c of p.cases)
    judge(
      c.description,
      () => verifyTlogProof(c.proof, fromHex(p.leaf_hash), { origin: p.origin, logKeys: p.vkeys.map(parseVkey) }),
      c.intent.valid,
      c.intent.code,
    );
  try {
    const t = tlog.tiles;
    const cp = parseCheckpoint(openNote(t.checkpoint, t.vkeys.map(parseVkey)).note.text);
    const r = new TileReader(async (path) => fromHex(t.tiles[path]), cp);
    await r.checkRoot();
    const entries = await r.entries(0, cp.size);
    if (
      entries.length === t.leaves.length &&
      entries.every((e, i) => t.leaves[i] === Array.from(e, (b) => b.toString(16).padStart(2, '0')).join(''))
    )
      passed++;
    else failed.push('tiles: entries');
  } catch (e) {
    failed.push(`tiles: ${e}`);
  }
  return [passed, failed];
}

const canon = (v) =>
  Array.isArray(v)
    ? `[${v.map(canon).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
          .join(',')}}`
      : JSON.stringify(v);

export async function smoke(now = () => performance.now()) {
  const backend = await defaultCrypto();
  let passed = 0;
  const failed = [];
  for (const c of vectors) {
    let got;
    try {
      got = {
        status: 200,
        response: await verifyBundle(c.inputText ?? c.input, {
          trustedKeys: c.trustedKeys,
          trustedBridgeKeys: c.trustedBridgeKeys,
          trustedEnvelopeKeys: c.trustedEnvelopeKeys,
          ...(c.logPolicy ? { logPolicy: logPolicy(c.logPolicy) } : {}),
          ...(c.checkEnvelopes ? { envelopes: envelopeChecker } : {}),
          service: c.service,
        }),
      };
    } catch (e) {
      got = e instanceof SvcError ? { status: e.status, code: e.code } : { thrown: String(e) };
    }
    if (canon(got) === canon(c.expected)) passed++;
    else failed.push(c.description);
  }
  const [tlogPassed, tlogFailed] = await tlogCases();
  passed += tlogPassed;
  failed.push(...tlogFailed);
  // Timing: one plain proof bundle, default backend against noble, same run.
  const plain = vectors.find((c) => c.description === 'plain answer, pinned key: passes and is recognised') ?? vectors[0];
  const time = async (crypto, n) => {
    await verifyBundle(plain.input, { trustedKeys: plain.trustedKeys, crypto });
    const t = now();
    for (let i = 0; i < n; i++) await verifyBundle(plain.input, { trustedKeys: plain.trustedKeys, crypto });
    return (now() - t) / n;
  };
  const msDefault = await time(backend, 30);
  const msNoble = backend === nobleBackend ? msDefault : await time(nobleBackend, 10);
  return {
    backend: backend.name,
    passed,
    total: vectors.length + tlog.notes.vkeys.length + tlog.notes.notes.length + tlog['tlog-proof'].cases.length + 1,
    failed: failed.slice(0, 5),
    msPerVerify: { [backend.name]: +msDefault.toFixed(3), noble: +msNoble.toFixed(3) },
  };
}
