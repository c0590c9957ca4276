// Several processes append to one PostgreSQL log. The one holding the writer role (inside the
// sequencing transaction, row lock taken) is SIGKILLed, 6 times in every `npm test`
// (SVC_FAILOVER_KILLS=30 for a longer run; `npm run fuzz -- --only sigkill --pg` for a campaign:
// each kill costs a replacement's start, about 3 s of CPU on the CI machine, and 12 made this the
// suite's costliest file after the first hour's); another takes over within
// seconds, and every acknowledged leaf is still in the log and provable. A writer frozen there
// instead (SIGSTOP: its socket stays open) loses the role after the idle-transaction timeout.
import { describe, expect, it } from 'vitest';
import { appendLoop, expectAllAcknowledged, type Ack } from '../support/appenders.js';
import { testDb } from '../support/backends.js';
import { runs } from '@svc/tools/system';

const KILLS = Math.max(4, Number(process.env.SVC_FAILOVER_KILLS ?? 6));

describe.runIf(runs('postgres'))('failover on PostgreSQL', () => {
  it(`SIGKILL of the writer ${KILLS} times: another appender takes over within seconds; nothing acknowledged is lost`, async () => {
    const db = await testDb('postgres');
    (await db.open()).close(); // migrate once, before the appenders race to
    const acked: Ack[] = [];
    // HOLD_MS keeps each writer inside its transaction for 40 ms after it says "sealing". The
    // timeouts a takeover could otherwise wait for (idle transaction, query) are a minute here, so
    // a takeover that waited for one is told apart from a slow one by a wide margin, not a tight one.
    const TIMEOUT_MS = 60_000;
    const env = { HOLD_MS: '40', PG_IDLE_TX_MS: String(TIMEOUT_MS), PG_CALL_MS: String(TIMEOUT_MS) };
    type Proc = ReturnType<typeof appendLoop> & { tag: string; sealing: number };
    const procs = new Set<Proc>();
    let nextTag = 0;
    let onSealing: ((p: Proc) => void) | null = null;
    const start = () => {
      const tag = `w${nextTag++}`;
      const p = { ...appendLoop(db.location, tag, acked, env), tag, sealing: 0 } as Proc;
      p.onLine((line) => {
        if (line === 'sealing') {
          p.sealing++;
          onSealing?.(p);
        }
      });
      procs.add(p);
      return p;
    };
    for (let i = 0; i < 3; i++) start();
    const takeovers: number[] = [];
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        // The next process seen holding the writer role is the one killed, right there.
        const writer = await new Promise<Proc>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no writer within 30 s')), 30_000);
          onSealing = (p) => {
            onSealing = null;
            clearTimeout(timer);
            resolve(p);
          };
        });
        const killedAt = performance.now();
        const before = acked.length;
        writer.child.kill('SIGKILL');
        procs.delete(writer);
        await new Promise((r) => writer.child.once('exit', r));
        // Takeover: the next acknowledgement by one of the survivors. The replacement starts after
        // it, so its start-up (module loading, keys, the full check) does not compete for the two
        // cores with the failover being measured.
        const deadline = killedAt + TIMEOUT_MS;
        while (!acked.slice(before).some((a) => a.tag !== writer.tag && a.at > killedAt) && performance.now() < deadline)
          await new Promise((r) => setTimeout(r, 10));
        const next = acked.slice(before).find((a) => a.tag !== writer.tag && a.at > killedAt);
        takeovers.push(next ? next.at - killedAt : Infinity);
        start();
      }
    } finally {
      onSealing = null;
      for (const p of procs) p.child.kill('SIGKILL');
      await Promise.all([...procs].map((p) => new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r)))));
    }
    const sorted = [...takeovers].sort((a, b) => a - b);
    console.info(
      `failover: takeover after SIGKILL of the writer, median ${sorted[KILLS >> 1]!.toFixed(0)} ms, max ${sorted[KILLS - 1]!.toFixed(0)} ms; all: ${sorted.map((x) => x.toFixed(0)).join(' ')}`,
    );
    expect(takeovers).toHaveLength(KILLS);
    // Measured on two shared cores: median 0.5-1.4 s, maxima 2.3-3.8 s (the survivors are often
    // busy auditing each other's batches when the writer dies); inside a whole CI run on an AMD EPYC
    // VM, medians 0.9-2.3 s and maxima 3.9 to 9.9 s. What the bound must catch is a takeover that
    // never comes or waits for a timeout (a minute here): half of it leaves a busy machine three
    // times its worst seen, where a 9.5 s bound against 10 s timeouts once failed at 9.9 s.
    expect(Math.max(...takeovers)).toBeLessThan(TIMEOUT_MS / 2);
    // Each takeover is an acknowledgement, so at least one per kill; on a slow machine the next
    // writer can be killed right after its first one, so exactly that many is a pass, not a stall.
    expect(acked.length).toBeGreaterThanOrEqual(KILLS);
    await expectAllAcknowledged(db, acked);
  }, 600_000);

  it('a writer frozen inside the sequencing transaction loses the writer role; its batch is never acknowledged', async () => {
    const db = await testDb('postgres');
    (await db.open()).close();
    const acked: Ack[] = [];
    // a stops itself inside the transaction once it has appended a little (FREEZE_AFTER), however
    // slowly this process reads its lines; a short idle timeout.
    const IDLE_MS = 1_500;
    const a = appendLoop(db.location, 'a', acked, { FREEZE_AFTER: '3', PG_IDLE_TX_MS: String(IDLE_MS) });
    const b = appendLoop(db.location, 'b', acked, { HOLD_MS: '40', PG_IDLE_TX_MS: String(IDLE_MS) });
    try {
      const until = async (ok: () => boolean, ms: number) => {
        const end = performance.now() + ms;
        while (!ok() && performance.now() < end) await new Promise((r) => setTimeout(r, 5));
        return ok();
      };
      const [frozenK, frozenSize] = await new Promise<[number, number]>((resolve) =>
        a.onLine((line) => {
          const m = /^frozen (\d+) (\d+)$/.exec(line);
          if (m) resolve([Number(m[1]), Number(m[2])]);
        }),
      );
      const frozenAt = performance.now();
      expect(acked.filter((x) => x.tag === 'a')).toHaveLength(3);
      // The takeover is b writing where a was sealing: only once a's session is gone can b's batch
      // take those indexes. (An ack of b read after the freeze may be of a batch b committed before
      // it; waking a then would let its batch commit, which is no failover at all.)
      const tookOver = () => acked.find((x) => x.tag === 'b' && x.first >= frozenSize);
      expect(await until(() => tookOver() !== undefined, 20_000)).toBe(true);
      const takeover = tookOver()!.at - frozenAt;
      // Within the idle timeout plus b's own batch (its hold, its signature), not never.
      expect(takeover).toBeLessThan(IDLE_MS + 6_000);
      a.child.kill('SIGCONT');
      const wokeAt = performance.now();
      // a goes on appending on a new connection; the batch it was sealing was rolled back, unacknowledged.
      expect(await until(() => acked.some((x) => x.tag === 'a' && x.at > wokeAt), 20_000)).toBe(true);
      expect(acked.filter((x) => x.tag === 'a' && x.k === frozenK)).toEqual([]);
    } finally {
      for (const p of [a, b]) {
        p.child.kill('SIGCONT');
        p.child.kill('SIGKILL');
      }
      await Promise.all([a, b].map((p) => new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r)))));
    }
    await expectAllAcknowledged(db, acked);
  }, 120_000);
});
