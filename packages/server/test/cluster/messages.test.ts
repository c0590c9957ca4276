// Messages between the cluster's primary and its processes: whatever arrives, each side either
// recognises one of its message shapes or ignores it; nothing throws, and a process whose primary
// does not answer goes on after its timeout: limits refuse (null, never a pass), council unknown, metrics absent.
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { asAnswer, asAsk, asCouncil, asNotice, clusterLink } from '../../src/internal.js';

describe('cluster messages', () => {
  it('property: any value is one of the shapes or null, never a throw', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withMap: true, withSet: true, withTypedArray: true }), (m) => {
        for (const read of [asAsk, asAnswer, asNotice, asCouncil]) expect(() => read(m)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('recognises only well-formed asks: an id, and for take a short ip, a group and an integer limit', () => {
    expect(asAsk({ svc: 'take', id: 1, ip: '10.0.0.1', group: 'verify', perMinute: 40 })).not.toBeNull();
    expect(asAsk({ svc: 'council', id: 2 })).not.toBeNull();
    // An issuing batch spends one unit per answer: a count from 1 up.
    expect(asAsk({ svc: 'take', id: 3, ip: 'tok', group: 'issue', perMinute: 600, count: 256 })).not.toBeNull();
    for (const bad of [
      { svc: 'take', id: 1, ip: 'a', group: 'g', perMinute: 1, count: 0 },
      { svc: 'take', id: 1, ip: 'a', group: 'g', perMinute: 1, count: 2.5 },
      { svc: 'take', id: 1, ip: 'a', group: 'g', perMinute: 1, count: '2' },
      { svc: 'take', id: 0, ip: 'a', group: 'g', perMinute: 1 },
      { svc: 'take', id: 1.5, ip: 'a', group: 'g', perMinute: 1 },
      { svc: 'take', id: 1, ip: 'x'.repeat(65), group: 'g', perMinute: 1 },
      { svc: 'take', id: 1, ip: 'a', group: 'g', perMinute: '1' },
      { svc: 'take', id: 1, ip: 7, group: 'g', perMinute: 1 },
      { svc: 'shutdown', id: 1 },
      { svc: 'metrics' },
      ['take', 1],
      null,
    ])
      expect(asAsk(bad)).toBeNull();
    expect(asNotice({ svc: 'witnessing', state: { published: 5, status: {} } })).toBeNull();
    expect(asNotice({ svc: 'witnessing', state: { published: null, status: {} } })).not.toBeNull();
    expect(asCouncil({ ok: false })).toBeNull();
  });

  it('a process whose primary never answers: limits refuse, council and metrics are absent, after the timeout', async () => {
    vi.useFakeTimers();
    try {
      const sent: unknown[] = [];
      const proc = Object.assign(new EventEmitter(), { connected: true, send: (m: unknown) => sent.push(m) });
      const link = clusterLink(1, proc as unknown as NodeJS.Process);
      expect(link.leader).toBe(false);
      const take = link.take('1.2.3.4', 'verify', 5);
      const council = link.council();
      vi.advanceTimersByTime(2_001);
      await vi.advanceTimersToNextTimerAsync();
      expect(await take).toBeNull();
      expect(await council).toBeNull();
      expect(sent).toHaveLength(2);
      // A hostile or confused answer is not believed: a negative wait, a wrong id, a non-object.
      const t2 = link.take('1.2.3.4', 'verify', 5);
      const id = (sent[2] as { id: number }).id;
      proc.emit('message', 'garbage');
      proc.emit('message', { svc: 'answer', id: id + 100, value: 9 });
      proc.emit('message', { svc: 'answer', id, value: -3 });
      expect(await t2).toBeNull();
      const t3 = link.take('1.2.3.4', 'verify', 5);
      proc.emit('message', { svc: 'answer', id: (sent[3] as { id: number }).id, value: 7 });
      expect(await t3).toBe(7);
      // The leader's shared state is taken only in its shape.
      proc.emit('message', { svc: 'witnessing', state: { published: 'note', status: { latestSize: 3 } } });
      expect(link.witnessing()?.published).toBe('note');
      let stopped = 0;
      link.onShutdown(() => stopped++);
      proc.emit('message', { svc: 'shutdown', extra: true });
      proc.emit('disconnect');
      expect(stopped).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a shutdown asked while the process is still starting reaches the handler it sets later', async () => {
    const proc = Object.assign(new EventEmitter(), { connected: true, send: () => true });
    const link = clusterLink(1, proc as unknown as NodeJS.Process);
    proc.emit('message', { svc: 'shutdown' });
    let stopped = 0;
    link.onShutdown(() => stopped++);
    await Promise.resolve();
    expect(stopped).toBe(1);
    // A link never asked to stop does not call its handler.
    const quiet = clusterLink(2, Object.assign(new EventEmitter(), { connected: true, send: () => true }) as unknown as NodeJS.Process);
    let calls = 0;
    quiet.onShutdown(() => calls++);
    await Promise.resolve();
    expect(calls).toBe(0);
  });
});
