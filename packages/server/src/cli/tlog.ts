// `svc ledger tiles`, `svc ledger monitor` and `svc ledger prove --tlog-proof`: the C2SP side of
// the ledger from the command line. Exit 3 when the log is found at fault (a fork, a rollback,
// tiles that do not hash to the signed root, a checkpoint the key did not sign).
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bytesEqual, fromHex } from '@svc/core/primitives';
import { isSubtree, verifySubtreeProof } from '@svc/core/merkle';
import {
  TlogError,
  formatTlogProof,
  openNote,
  openSubtreeSignatures,
  parseSignSubtree,
  parseCheckpoint,
  parsePolicy,
  parseVkey,
  verifyTlogProof,
  type Policy,
  type FetchTile,
  type NoteVerifier,
} from '@svc/core/tlog';
import { LedgerError } from '../ledger/errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { exportTiles } from '../tlog/export.js';
import { monitorOnce, readMonitorState, writeMonitorState } from '../tlog/monitor.js';
import { baseUrl, CliError, fetchJson, networkCause, readInput } from './common.js';
import { io } from './io.js';
import { proveTarget } from './ledger.js';
import { PEER_CAPS, PEER_DEADLINE_MS, PeerAnswerTooLarge, readCapped } from '../net/peer.js';

const TLOG = '/api/transparency/tlog/';

/** The largest valid answer for a path under a log's prefix: a checkpoint, or a tile or entry bundle. */
const capOf = (path: string): number => (path === 'checkpoint' ? PEER_CAPS.checkpoint : PEER_CAPS.tile);

/** Fetch paths under a tiled log's prefix: an http(s) URL, or a folder (a static export on disk). */
export function tileFetcher(where: string, deadlineMs = PEER_DEADLINE_MS): FetchTile {
  if (!/^https?:\/\//.test(where)) {
    const dir = resolve(where);
    return async (path) => {
      const file = join(dir, path);
      try {
        if (statSync(file).size > capOf(path))
          throw new CliError(`${file} is larger than any valid ${path === 'checkpoint' ? 'checkpoint' : 'tile'} (${capOf(path)} bytes)`, 2);
        return new Uint8Array(readFileSync(file));
      } catch (e) {
        if (e instanceof CliError) throw e;
        throw new CliError(`${file} cannot be read`, 2);
      }
    };
  }
  const prefix = where.endsWith('/') ? where : `${where}/`;
  return async (path) => {
    let res: Response;
    const deadline = AbortSignal.timeout(deadlineMs);
    try {
      res = await fetch(prefix + path, { signal: deadline });
    } catch (e) {
      throw new CliError(`cannot reach ${prefix + path}: ${networkCause(e)}`, 2);
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      throw new CliError(`${prefix + path} answered ${res.status}`, 2);
    }
    try {
      return await readCapped(res, capOf(path), prefix + path, deadline);
    } catch (e) {
      throw new CliError(e instanceof PeerAnswerTooLarge ? e.message : `reading ${prefix + path}: ${networkCause(e)}`, 2);
    }
  };
}

function vkeyArg(v: string, flag = '--vkey'): NoteVerifier {
  try {
    return parseVkey(v.trim());
  } catch (e) {
    throw new CliError(`${flag} is not a verifier key: ${(e as Error).message}`, 2);
  }
}

/** `svc ledger tiles --out DIR`: the ledger of this data folder (or database) as a static mirror. */
export async function tilesCommand(ledger: Ledger, dir: string, out: (s: string) => void, progress: (s: string) => void): Promise<number> {
  let checkpoint: string;
  try {
    await ledger.audit.fullCheck();
    checkpoint = await ledger.checkpoint();
  } catch (e) {
    if (e instanceof LedgerError) throw new CliError(e.message, 3);
    throw e;
  }
  try {
    const r = await exportTiles(ledger.store, checkpoint, dir, (done, total) => {
      if (done % 64 === 0 || done === total) progress(`writing tiles ${done}/${total}`);
    });
    out(
      r.written === 0
        ? `Nothing new: ${dir} already holds the checkpoint of ${r.to} leaves.`
        : `Exported ${r.to} leaves to ${dir} (${r.from === r.to ? 'checkpoint' : `from ${r.from}`}: ${r.written} files written, the checkpoint last).`,
    );
    return 0;
  } catch (e) {
    if (e instanceof LedgerError) throw new CliError(e.message, e.code === 'invalid_request' ? 2 : 3);
    throw e;
  }
}

function policyArg(file: string): Policy {
  try {
    return parsePolicy(readInput(file, '--policy'));
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`--policy ${file}: ${(e as Error).message}`, 2);
  }
}

/** `svc ledger monitor --tiles URL --vkey VKEY --state FILE [--policy FILE]`. */
export async function monitorCommand(
  opts: { tiles: string; vkey: string; state: string; policy?: string },
  out: (s: string) => void,
  progress: (s: string) => void,
): Promise<number> {
  const vkey = vkeyArg(opts.vkey);
  let state: ReturnType<typeof readMonitorState>;
  try {
    state = readMonitorState(opts.state);
  } catch (e) {
    throw new CliError(`--state ${opts.state} is not a monitor state: ${(e as Error).message}`, 2);
  }
  try {
    const policy = opts.policy ? policyArg(opts.policy) : undefined;
    const { result, state: next } = await monitorOnce(
      tileFetcher(opts.tiles),
      vkey,
      state,
      (done, total) => progress(`checking entries ${done}/${total}`),
      policy,
    );
    writeMonitorState(opts.state, next);
    out(
      `MONITOR OK: ${result.origin} size ${result.to}${state ? `, consistent with size ${result.from}` : ' (first run: state recorded)'}; ${result.entries} new entries checked against their leaves${result.cosigned !== undefined ? `; witness quorum met (${result.cosigned} cosignatures)` : ''}.`,
    );
    return 0;
  } catch (e) {
    if (e instanceof TlogError && e.code !== 'malformed_tile') {
      out(`MONITOR FAILED for ${opts.tiles}\n- ${e.message}`);
      return 3;
    }
    if (e instanceof TlogError) throw new CliError(e.message, 3);
    throw e;
  }
}

/** `svc ledger prove --tlog-proof`: a c2sp.org/tlog-proof@v1 for the entry, checked before it is printed. */
export async function tlogProofCommand(
  opts: { url: string; vkey?: string[]; answer?: string; 'answer-sha256'?: string; leaf?: string },
  out: (s: string) => void,
  note: (s: string) => void,
): Promise<number> {
  const target = proveTarget(opts);
  const base = baseUrl(opts.url);
  const fetchTile = tileFetcher(base + TLOG);
  let keys: NoteVerifier[];
  if (opts.vkey?.length) keys = opts.vkey.map((v) => vkeyArg(v));
  else {
    keys = new TextDecoder()
      .decode(await fetchTile('vkeys'))
      .split('\n')
      .filter(Boolean)
      .map((v) => vkeyArg(v, 'a served vkey'));
    note(`checkpoint keys fetched from ${base}${TLOG}vkeys, not pinned (pass --vkey to pin them)`);
  }
  const checkpoint = new TextDecoder().decode(await fetchTile('checkpoint'));
  let c: ReturnType<typeof parseCheckpoint>;
  try {
    c = parseCheckpoint(openNote(checkpoint, keys).note.text);
  } catch (e) {
    out(`The checkpoint does not verify: ${(e as Error).message}`);
    return 1;
  }
  const r = await fetchJson(`${base}/api/transparency/ledger/inclusion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...target.body, tree_size: c.size }),
  });
  if (r.status !== 200) throw new CliError(`inclusion answered ${r.status}: ${r.body?.error ?? ''}`, 2);
  if (!r.body.found) {
    out(`Not found in the log at checkpoint size ${c.size}.`);
    return 1;
  }
  const proof = (Array.isArray(r.body.proof) ? r.body.proof : []).map((x: unknown) => fromHex(x, 32) ?? new Uint8Array());
  const text = formatTlogProof({ index: r.body.index, proof, checkpoint });
  try {
    const v = verifyTlogProof(text, target.leaf, { origin: c.origin, logKeys: keys.filter((k) => k.name === c.origin) });
    if (!bytesEqual(v.checkpoint.root, c.root)) throw new Error('root');
  } catch (e) {
    out(`The inclusion path does NOT lead to the checkpoint root: ${(e as Error).message}`);
    return 1;
  }
  io().stdout.write(text);
  return 0;
}

/**
 * `svc ledger subtree --request FILE --answer FILE --vkey VKEY...`: a subtree cosignature checked
 * offline. The request is a sign-subtree body (the subtree, its hash, its consistency proof and the
 * checkpoint); the answer is the cosigner's lines. Exit 0 when the checkpoint opens under a given
 * key, the proof leads from the hash to its root, and a given key's subtree/v1 line (timestamp 0)
 * verifies over that subtree; 1 when any of that fails.
 */
export function subtreeCommand(o: { request: string; answer: string; vkeys: string[] }, print: (s: string) => void): number {
  const keys = o.vkeys.map((v) => vkeyArg(v));
  let req: ReturnType<typeof parseSignSubtree>;
  try {
    req = parseSignSubtree(readInput(o.request, '--request'));
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`--request is not a sign-subtree body: ${(e as Error).message}`, 2);
  }
  const fail = (why: string) => {
    print(`SUBTREE NOT VERIFIED: ${why}`);
    return 1;
  };
  let c: ReturnType<typeof parseCheckpoint>;
  try {
    c = parseCheckpoint(openNote(req.checkpoint, keys).note.text);
  } catch (e) {
    return fail(`the checkpoint does not open under the keys given (${(e as Error).message})`);
  }
  if (!isSubtree(req.start, req.end) || req.end > c.size) return fail(`[${req.start}, ${req.end}) is not a subtree of a tree of ${c.size}`);
  if (!verifySubtreeProof(req.start, req.end, c.size, req.proof, req.hash, c.root))
    return fail("the subtree consistency proof does not lead to the checkpoint's root");
  let signed: ReturnType<typeof openSubtreeSignatures>;
  try {
    signed = openSubtreeSignatures(
      readInput(o.answer, '--answer'),
      { origin: c.origin, start: req.start, end: req.end, hash: req.hash },
      keys,
    );
  } catch (e) {
    if (e instanceof CliError) throw e;
    return fail((e as Error).message);
  }
  print(
    `SUBTREE OK: [${req.start}, ${req.end}) of ${c.origin} (size ${c.size}) cosigned by ${[...new Set(signed.map((x) => x.name))].join(', ')}.`,
  );
  return 0;
}
