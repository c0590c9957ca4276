// The memory budget of `svc serve`'s default two-process layout at start (#35 item 4), per process
// role, measured idle after start on the CI machine (2 cores). On Node 20 the primary took 84 MiB
// (110 before it stopped loading the server modules it never runs), a server process 88 MiB (116
// before it stopped loading pg on SQLite, 108 before its verification thread started on first
// use), a storage process 66 MiB (80 before it loaded the tree through @svc/core/merkle alone). On
// Node 24, which the server needs since #54 and these tests run on, the same build takes 85,
// 110-119 and 73-80 MiB: the runtime's own cost (docs/benchmarks.md). A process that starts more than 20% above its budget
// fails here, so a dependency that doubles what every process maps is seen when it lands.
import { describe, expect, it } from 'vitest';
import { fresh, serveCluster } from '../support/cluster.js';
import { descendants, rssMiB } from '../support/procs.js';

const BUDGET_MIB = { primary: 85, server: 117, storage: 78 } as const;

describe.runIf(process.platform === 'linux')('memory at start', () => {
  it('every process of the default layout starts within 20% of its budget', async () => {
    const c = await serveCluster({ SVC_PROCESSES: '2', SVC_WORKERS: '1' });
    try {
      expect((await fresh(`${c.base}/healthz`)).status).toBe(200);
      // Settled: the full check of an empty log is done and start-up garbage collectable.
      // Each server process opens its own storage process and checks the log: both, however late
      // a loaded machine starts the second.
      for (let until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100)))
        if (c.lines().filter((l) => l.event === 'ledger_full_check_done').length >= 2) break;
      // On failure, what each process said about its ledger (opened, unavailable, checked).
      const ledgerEvents = c.lines().filter((l) => String(l.event).startsWith('ledger_') || l.level === 'error' || l.level === 'warn');
      expect(
        c.lines().filter((l) => l.event === 'ledger_full_check_done'),
        JSON.stringify(ledgerEvents),
      ).toHaveLength(2);
      await new Promise((r) => setTimeout(r, 1500));
      const procs = [{ pid: c.child.pid!, cmd: 'primary' }, ...descendants(c.child.pid!)];
      const measured = procs.map((p) => ({
        role: p.pid === c.child.pid ? 'primary' : p.cmd.includes('sqlite-process') ? 'storage' : 'server',
        mib: rssMiB(p.pid),
      })) as { role: keyof typeof BUDGET_MIB; mib: number | null }[];
      console.log(`RSS at start (MiB): ${measured.map((m) => `${m.role} ${m.mib?.toFixed(0)}`).join(', ')}`);
      expect(measured.filter((m) => m.role === 'server')).toHaveLength(2);
      expect(measured.filter((m) => m.role === 'storage')).toHaveLength(2);
      for (const m of measured)
        expect(m.mib, `${m.role} ${m.mib} MiB against ${BUDGET_MIB[m.role]} MiB`).toBeLessThanOrEqual(BUDGET_MIB[m.role] * 1.2);
    } finally {
      process.kill(-c.child.pid!, 'SIGINT');
    }
    expect(await c.exited).toBe(0);
  }, 120_000);
});
