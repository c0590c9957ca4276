// `svc ledger prove` and `svc ledger audit`: a client and a monitor of a remote log. Both check
// paths against the signed root and never trust an unsigned response's root.
import { existsSync, writeFileSync } from 'node:fs';
import { verifyBundle, type ReceiptKey, type ConsistencyVerdict } from '@svc/core';
import { fromHex, sha256, utf8 } from '@svc/core/primitives';
import { leafHash, verifyInclusion } from '@svc/core/merkle';
import { parseTreeHead } from '@svc/core/issue';
import { baseUrl, CliError, fetchJson, fetchKeys, loadKeysFile, readInput } from './common.js';
import { EXIT_UNRECOGNISED } from './verify.js';

const base = baseUrl;

async function signedHead(url: string, keys: ReceiptKey[]) {
  const r = await fetchJson(`${base(url)}/api/transparency/ledger`);
  if (r.status !== 200) throw new CliError(`ledger answered ${r.status}`, 2);
  if (r.body.enabled === false) throw new CliError('the ledger is disabled on this server', 2);
  return { body: r.body, sth: r.body.signed_tree_head, withheld: r.body.sth_withheld as string | undefined, keys };
}

async function checkHead(sth: unknown, keys: ReceiptKey[]) {
  const v = await verifyBundle(sth, { trustedKeys: keys });
  const body = parseTreeHead((sth as { signed?: unknown }).signed);
  return { ok: v.verdict.overallOk && !!body, recognized: v.signerRecognized, body };
}

/** What `prove` looks up: the JSON request member, and the RFC 6962 leaf hash it stands for. */
export function proveTarget(o: { answer?: string; 'answer-sha256'?: string; leaf?: string }): {
  body: Record<string, string>;
  leaf: Uint8Array;
} {
  const given = (['answer', 'answer-sha256', 'leaf'] as const).filter((k) => o[k] !== undefined);
  if (given.length !== 1) throw new CliError('give exactly one of --answer, --answer-sha256 or --leaf', 2);
  if (o.answer !== undefined) return { body: { answer: o.answer }, leaf: leafHash(sha256(utf8(o.answer))) };
  const hex = (o['answer-sha256'] ?? o.leaf)!;
  const bytes = fromHex(hex, 32);
  if (!bytes) throw new CliError(`--${given[0]} must be 64 lowercase hex characters`, 2);
  return o.leaf !== undefined ? { body: { leaf: hex }, leaf: bytes } : { body: { answer_sha256: hex }, leaf: leafHash(bytes) };
}

export async function proveCommand(
  opts: { url: string; answer?: string; 'answer-sha256'?: string; leaf?: string; keys?: string; 'allow-unpinned'?: boolean },
  out: (s: string) => void,
): Promise<number> {
  const target = proveTarget(opts);
  // Without --keys the tree-head key comes from the server being checked: it proves the path leads
  // to what that server signed, never who it is. Only pinned keys can recognise a signer.
  const pinned = opts.keys !== undefined;
  const keys = pinned ? loadKeysFile(opts.keys!) : await fetchKeys(opts.url);
  const head = await signedHead(opts.url, keys);
  if (!head.sth) throw new CliError(`the server withholds its signed tree head (${head.withheld ?? 'unknown'})`, 1);
  const h = await checkHead(head.sth, keys);
  if (!h.ok || !h.body) {
    out('The signed tree head does not verify.');
    return 1;
  }
  const r = await fetchJson(`${base(opts.url)}/api/transparency/ledger/inclusion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...target.body, tree_size: h.body.tree_size }),
  });
  if (r.status !== 200) throw new CliError(`inclusion answered ${r.status}: ${r.body?.error ?? ''}`, 2);
  if (!r.body.found) {
    out(`Not found in the log at signed size ${h.body.tree_size}.`);
    return 1;
  }
  const leaf = target.leaf;
  const proof = Array.isArray(r.body.proof) ? r.body.proof.map((x: unknown) => fromHex(x, 32)) : [];
  const ok =
    proof.every((x: Uint8Array | null) => x !== null) &&
    verifyInclusion(r.body.index, h.body.tree_size, leaf, proof, fromHex(h.body.root_hash)!);
  const who = !pinned
    ? 'tree-head key taken from the server being checked, not pinned: pass --keys FILE to know whose log this is'
    : h.recognized
      ? 'tree-head key recognised by the pinned keys'
      : 'tree-head key NOT one of the pinned keys';
  out(
    ok
      ? `Included: leaf ${r.body.index} of ${h.body.tree_size}, path verified against the signed root ${h.body.root_hash.slice(0, 16)}… (${who}).`
      : 'The inclusion path does NOT lead to the signed root.',
  );
  if (!ok) return 1;
  return pinned && !h.recognized && !opts['allow-unpinned'] ? EXIT_UNRECOGNISED : 0;
}

interface AuditState {
  url: string;
  tree_size: number;
  root_hash: string;
  timestamp: number;
  key_hex?: string;
}

/** A saved audit state, or an error naming the file and what is wrong with it. */
function readState(file: string): AuditState {
  let v: unknown;
  try {
    v = JSON.parse(readInput(file));
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`--state ${file} is not a saved audit state: not valid JSON (${(e as Error).message})`, 2);
  }
  const s = v as Partial<AuditState>;
  if (typeof s !== 'object' || s === null || !Number.isSafeInteger(s.tree_size) || typeof s.root_hash !== 'string')
    throw new CliError(`--state ${file} is not a saved audit state: it needs tree_size and root_hash`, 2);
  return s as AuditState;
}

export async function auditCommand(
  opts: { url: string; state?: string; keys?: string },
  out: (s: string) => void,
  progress: (s: string) => void,
): Promise<number> {
  const prev = opts.state && existsSync(opts.state) ? readState(opts.state) : null;
  let keys: ReceiptKey[] = opts.keys ? loadKeysFile(opts.keys) : [];
  const head = await signedHead(opts.url, keys);
  const problems: string[] = [];
  if (head.withheld) problems.push(`the server itself withholds its signed head: ${head.withheld}`);
  if (!head.sth) {
    out(`AUDIT FAILED\n- ${problems.join('\n- ') || 'no signed tree head'}`);
    return 3;
  }
  // Trust on first use when no keys are given: the state file remembers the tree-head key.
  if (keys.length === 0 && prev?.key_hex)
    keys = [{ key_id: '', public_key_hex: prev.key_hex, algo: 'ML-DSA-87', context: head.sth.key?.context ?? '' }];
  const h = await checkHead(head.sth, keys);
  if (!h.ok || !h.body) problems.push('the signed tree head has a bad signature');
  else if (keys.length > 0 && !h.recognized) problems.push('the signed tree head is signed by a key that is not pinned');
  const now = h.body;
  if (now && prev) {
    if (now.tree_size < prev.tree_size) problems.push(`rollback: the log shrank from ${prev.tree_size} to ${now.tree_size}`);
    else if (now.tree_size === prev.tree_size && now.root_hash !== prev.root_hash)
      problems.push(`fork: two roots at size ${now.tree_size}`);
    else if (now.timestamp < prev.timestamp) problems.push('the new head is dated before the last one seen');
    else if (now.tree_size > prev.tree_size) {
      const steps = await catchUp(opts.url, prev, now, keys, progress);
      problems.push(...steps);
    }
  }
  if (problems.length > 0) {
    out(`AUDIT FAILED for ${opts.url}\n- ${problems.join('\n- ')}`);
    return 3;
  }
  if (opts.state && now) {
    const state: AuditState = {
      url: opts.url,
      tree_size: now.tree_size,
      root_hash: now.root_hash,
      timestamp: now.timestamp,
      key_hex: head.sth.key?.public_key_hex ?? prev?.key_hex,
    };
    writeFileSync(opts.state, `${JSON.stringify(state, null, 2)}\n`);
  }
  out(
    `AUDIT OK: ${now!.log} size ${now!.tree_size}, root ${now!.root_hash.slice(0, 16)}…${prev ? `, consistent with size ${prev.tree_size}` : ' (first run: state recorded)'}`,
  );
  return 0;
}

/** Verify consistency from the last seen head to the current one through recorded checkpoints. */
async function catchUp(
  url: string,
  prev: AuditState,
  now: { tree_size: number; root_hash: string },
  keys: ReceiptKey[],
  progress: (s: string) => void,
): Promise<string[]> {
  const hist = await fetchJson(`${base(url)}/api/transparency/ledger/history?verifiable=1`);
  const sizes = new Set<number>([now.tree_size]);
  if (hist.status === 200 && Array.isArray(hist.body.checkpoints)) {
    for (const c of hist.body.checkpoints) if (c.tree_size > prev.tree_size && c.tree_size < now.tree_size) sizes.add(c.tree_size);
  }
  const path = [...sizes].sort((a, b) => a - b);
  let from = { size: prev.tree_size, root: prev.root_hash };
  for (let i = 0; i < path.length; i++) {
    const to = path[i]!;
    progress(`checking consistency ${from.size} -> ${to} (${i + 1}/${path.length})`);
    if (from.size === 0) {
      from = { size: to, root: '' };
      continue;
    }
    const r = await fetchJson(`${base(url)}/api/transparency/ledger/consistency?first=${from.size}&second=${to}&signed=1`);
    if (r.status !== 200) return [`consistency ${from.size} -> ${to} answered ${r.status}`];
    if (r.body.bundle_withheld) return [`consistency ${from.size} -> ${to}: heads out of timestamp order`];
    const v = await verifyBundle(r.body, { trustedKeys: keys });
    const c = (v.verdict as ConsistencyVerdict).consistency;
    if (!v.verdict.overallOk) return [`consistency ${from.size} -> ${to} does not verify (fork or bad signature)`];
    if (from.root && c.old.rootHash !== from.root) return [`fork: the log's head at ${from.size} is not the one seen before`];
    // A verifying bundle has parsed heads, so the root is there.
    from = { size: to, root: c.new.rootHash ?? '' };
  }
  if (from.root && from.root !== now.root_hash) return ['fork: the consistency chain does not end at the current signed head'];
  return [];
}
