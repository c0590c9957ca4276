// A ledger that could not be opened when the server started is tried again by itself, not only
// when a request comes: 5 s after the failure, then twice as long each time up to a minute. Two
// server processes making one fresh SQLite file together once left one of them without its ledger
// until a request came (the memory test, 1 of 5 stress runs). Each failed try is logged with its
// cause; a closed ledger is not tried again. Time here is a scheduler the test fires by hand.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { namesFor } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { ensureKeys, LedgerError, ledgerUnavailable, loadConfig, messageWithCauses, serveLedger, type Later } from '../../src/internal.js';
import { dataDir } from '../support/ledger-dirs.js';
import { afterThisTest } from '../support/lifecycle.js';

const names = namesFor('svc');
const quiet = () => {};

/** A scheduler the test fires by hand: what was asked for, in order, and whether it was cancelled. */
function manual() {
  const asked: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const later: Later = (fn, ms) => {
    const entry = { fn, ms, cancelled: false };
    asked.push(entry);
    return { cancel: () => void (entry.cancelled = true) };
  };
  const pending = () => asked.filter((a) => !a.cancelled);
  /** Fires the one pending timer (there is never more than one) and lets the open it starts finish. */
  const fire = async () => {
    const p = pending();
    expect(p).toHaveLength(1);
    p[0]!.cancelled = true; // fired: no longer pending
    p[0]!.fn();
    for (let i = 0; i < 3000 && pending().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  };
  return { later, asked, pending, fire };
}

/** A data folder whose ledger file is a folder: every open fails until the folder is removed. */
async function unopenable(): Promise<{ dir: string; fix: () => void }> {
  const dir = await dataDir(0, 'svc-open-retry-');
  const file = join(dir, 'ledger.sqlite');
  for (const f of ['', '-wal', '-shm']) rmSync(file + f, { force: true });
  mkdirSync(file);
  return { dir, fix: () => rmSync(file, { recursive: true }) };
}

describe('a ledger that could not be opened at start', () => {
  it('is tried again with no request: 5 s, 10, 20, 40, then every minute; opened once the file is fixed', async () => {
    const { dir, fix } = await unopenable();
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    const events: { event: string; error?: string }[] = [];
    const m = manual();
    const l = await serveLedger(
      cfg,
      names,
      ensureKeys(cfg, quiet),
      (event, f) => events.push({ event, ...(f as object) }),
      Date.now,
      m.later,
    );
    afterThisTest(() => l.close());
    expect(events.map((e) => e.event)).toEqual(['ledger_unavailable']);
    expect(events[0]!.error).toMatch(/\S/);
    for (const ms of [5_000, 10_000, 20_000, 40_000, 60_000, 60_000]) {
      expect(m.pending().map((p) => p.ms)).toEqual([ms]);
      await m.fire();
    }
    expect(events.filter((e) => e.event === 'ledger_unavailable')).toHaveLength(7);
    await expect(l.head()).rejects.toMatchObject({ code: 'unavailable' });
    fix();
    // The pending try opens it; nothing is scheduled after.
    const p = m.pending();
    expect(p).toHaveLength(1);
    p[0]!.cancelled = true; // fired
    p[0]!.fn();
    for (let i = 0; i < 3000 && !events.some((e) => e.event === 'ledger_opened'); i++) await new Promise((r) => setTimeout(r, 10));
    // Opened, and nothing after it but the full check an opened ledger runs in the background
    // (which may finish before this line is reached: CI saw ledger_full_check_done last).
    const after = events.slice(events.findIndex((e) => e.event === 'ledger_opened') + 1).map((e) => e.event);
    expect(events.some((e) => e.event === 'ledger_opened')).toBe(true);
    for (const e of after) expect(e).toBe('ledger_full_check_done');
    expect(m.pending()).toEqual([]);
    expect(await l.head()).toMatchObject({ enabled: true, tree_size: 0 });
  });

  it('closed, it is not tried again: the pending try is cancelled', async () => {
    const { dir } = await unopenable();
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    const m = manual();
    const l = await serveLedger(cfg, names, ensureKeys(cfg, quiet), quiet, Date.now, m.later);
    expect(m.pending()).toHaveLength(1);
    await l.close();
    expect(m.pending()).toEqual([]);
  });

  it('opened at start, nothing is scheduled', async () => {
    const dir = await dataDir(1, 'svc-open-retry-');
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    const m = manual();
    const l = await serveLedger(cfg, names, ensureKeys(cfg, quiet), quiet, Date.now, m.later);
    afterThisTest(() => l.close());
    expect(await l.head()).toMatchObject({ tree_size: 1 });
    expect(m.asked).toEqual([]);
  });
});

describe('an unavailable ledger keeps its cause for the log', () => {
  it('the refusal says "unavailable"; the log line names what failed beneath it', () => {
    const inner = new Error('SQLITE_BUSY: database is locked');
    const e = ledgerUnavailable('ledger', new Error('reading the heads', { cause: inner }));
    expect(e).toBeInstanceOf(LedgerError);
    expect(e.code).toBe('unavailable');
    expect(e.message).toBe('ledger temporarily unavailable');
    expect(messageWithCauses(e)).toBe('ledger temporarily unavailable: reading the heads: SQLITE_BUSY: database is locked');
    expect(ledgerUnavailable().cause).toBeUndefined();
    expect(messageWithCauses('text')).toBe('text');
  });
});
