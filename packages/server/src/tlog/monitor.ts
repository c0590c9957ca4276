// Following a tiled log (served, or a static mirror) as a monitor: each new checkpoint must open
// under the log's vkey, extend the last one seen (a consistency proof built from tiles), and every
// new entry must hash to its authenticated leaf. What was seen is kept in a state file, replaced
// atomically, so a rollback or fork is caught on the next run whatever happened in between.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fromBase64, toBase64 } from '@svc/core/primitives';
import {
  TileReader,
  TlogError,
  openNote,
  logPolicy,
  parseCheckpoint,
  type FetchTile,
  type NoteVerifier,
  type Policy,
} from '@svc/core/tlog';

export interface MonitorState {
  origin: string;
  size: number;
  /** base64, as in the checkpoint. */
  root: string;
  checkpoint: string;
}

export interface MonitorResult {
  origin: string;
  from: number;
  to: number;
  entries: number;
  /** Witness cosignatures that verified (with a policy). */
  cosigned?: number;
}

export function readMonitorState(file: string): MonitorState | null {
  if (!existsSync(file)) return null;
  const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<MonitorState>;
  if (
    typeof v.origin !== 'string' ||
    !Number.isSafeInteger(v.size) ||
    (v.size as number) < 0 ||
    fromBase64(v.root)?.length !== 32 ||
    typeof v.checkpoint !== 'string'
  )
    throw new Error('not a monitor state');
  return v as MonitorState;
}

export function writeMonitorState(file: string, s: MonitorState): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(s, null, 2)}\n`);
  renameSync(tmp, file);
}

/**
 * Check the log's current checkpoint against `state` (null: the first run, from the empty tree),
 * reading every new entry. Throws TlogError('inconsistent') on a rollback or fork, 'unverified' on
 * a checkpoint the key did not sign, 'proof_failed' on tiles that do not hash to the root.
 */
export async function monitorOnce(
  fetchTile: FetchTile,
  vkey: NoteVerifier,
  state: MonitorState | null,
  progress?: (done: number, total: number) => void,
  policy?: Policy,
): Promise<{ result: MonitorResult; state: MonitorState }> {
  const text = new TextDecoder().decode(await fetchTile('checkpoint'));
  const opened = openNote(text, [vkey]);
  const c = parseCheckpoint(opened.note.text);
  let cosigned = 0;
  if (policy) {
    // The policy's witness lines must verify, and enough of them to meet the quorum.
    const w = logPolicy(policy).checkCheckpoint(opened.note, c.origin);
    if (!w.signaturesOk) throw new TlogError('unverified', 'a cosignature by a key of the policy does not verify');
    cosigned = w.witnesses;
    if (!w.quorumMet)
      throw new TlogError(
        'unverified',
        `the checkpoint of ${c.size} leaves does not meet the policy's witness quorum (${w.witnesses} cosignatures verified)`,
      );
  }
  if (state && state.origin !== c.origin) throw new TlogError('inconsistent', `the state file follows ${state.origin}, not ${c.origin}`);
  const from = state?.size ?? 0;
  if (c.size < from) throw new TlogError('inconsistent', `rollback: the log shows ${c.size} leaves after ${from} were seen`);
  const reader = new TileReader(fetchTile, c);
  await reader.checkRoot();
  if (state) await reader.consistencyProof({ size: state.size, root: fromBase64(state.root)! });
  const CHUNK = 256 * 16;
  let entries = 0;
  for (let start = from; start < c.size; start += CHUNK) {
    const end = Math.min(c.size, start + CHUNK);
    entries += (await reader.entries(start, end)).length;
    progress?.(end - from, c.size - from);
  }
  return {
    result: { origin: c.origin, from, to: c.size, entries, ...(policy ? { cosigned } : {}) },
    state: { origin: c.origin, size: c.size, root: toBase64(c.root), checkpoint: text },
  };
}
