// Overlapping static exports (#30 row 5): run A starts at 30 leaves and stalls mid-way; the log
// grows to 40 and run B exports it whole; A resumes. The folder's checkpoint must stay at 40: an
// export never writes a checkpoint older than the one it finds there.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256, utf8 } from '@svc/core/primitives';
import { parseCheckpoint, parseNote } from '@svc/core/tlog';
import { exportTiles } from '../../src/internal.js';
import { openLedgerAt } from '../support/ledger-at.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-export-overlap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('overlapping svc ledger tiles runs', () => {
  it('a stalled older run finishing after a newer one leaves the newer checkpoint in place', async () => {
    const ledger = await openLedgerAt({ SVC_DATA_DIR: join(dir, 'data') });
    try {
      await ledger.append(Array.from({ length: 30 }, (_, i) => sha256(utf8(`a ${i}`))));
      const at30 = await ledger.checkpoint();
      await ledger.append(Array.from({ length: 10 }, (_, i) => sha256(utf8(`b ${i}`))));
      const at40 = await ledger.checkpoint();
      const out = join(dir, 'mirror');
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let stalled!: () => void;
      const reached = new Promise<void>((r) => (stalled = r));
      // A's reads wait at the gate: it has begun, and will finish after B.
      const slow = {
        kind: ledger.store.kind,
        nodes: async (...a: Parameters<typeof ledger.store.nodes>) => {
          stalled();
          await gate;
          return ledger.store.nodes(...a);
        },
        leaves: (...a: Parameters<typeof ledger.store.leaves>) => ledger.store.leaves(...a),
      };
      const a = exportTiles(slow, at30, out);
      await reached;
      const b = await exportTiles(ledger.store, at40, out);
      expect(b.to).toBe(40);
      release();
      const ra = await a;
      expect(ra.to).toBe(30);
      const kept = parseCheckpoint(parseNote(readFileSync(join(out, 'checkpoint'), 'utf8')).text);
      expect(kept.size).toBe(40);
    } finally {
      await ledger.close();
    }
  });
});
