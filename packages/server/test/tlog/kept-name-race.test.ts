// Processes starting together each found no keys/log-origin and each tried to make one; the loser's
// exclusive create failed with EEXIST and its server exited 2 before listening (CI, npm start on two
// processes). Here the race is made to happen every time: the file is absent when looked for and
// present, the winner's, when written.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const race = vi.hoisted(() => ({ armed: null as null | { file: string; winner: string } }));
vi.mock('node:fs', async (load) => {
  const fs = await load<typeof import('node:fs')>();
  const existsSync = (p: string) => {
    const r = race.armed;
    if (r && p === r.file) {
      race.armed = null;
      // Another process makes it between our look and our write.
      fs.mkdirSync(join(p, '..'), { recursive: true });
      fs.writeFileSync(p, r.winner);
      return false;
    }
    return fs.existsSync(p);
  };
  return { ...fs, existsSync, default: { ...fs, existsSync } };
});

// Test files share their worker's modules (vitest.config.ts): the module is loaded afresh, on the
// mocked node:fs, and dropped after, so no later file gets this copy.
vi.resetModules();
const { keptName } = await import('../../src/tlog/checkpoints.js');

const dirs: string[] = [];
afterAll(() => {
  vi.resetModules();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a kept name made by processes starting together', () => {
  it('the loser reads the winner name, throws nothing, and leaves no temporary file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-kept-'));
    dirs.push(dir);
    const file = join(dir, 'keys', 'log-origin');
    race.armed = { file, winner: 'svc-ledger.invalid/00112233aabbccdd\n' };
    expect(keptName(dir, 'log-origin', 'svc-ledger.invalid')).toBe('svc-ledger.invalid/00112233aabbccdd');
    expect(race.armed).toBeNull();
    expect(readdirSync(join(dir, 'keys'))).toEqual(['log-origin']);
  });

  it('made alone, the name is the prefix and 16 hex, kept, and read back the same next time', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-kept-'));
    dirs.push(dir);
    const first = keptName(dir, 'witness-name', 'svc-witness.invalid');
    expect(first).toMatch(/^svc-witness\.invalid\/[0-9a-f]{16}$/);
    expect(keptName(dir, 'witness-name', 'svc-witness.invalid')).toBe(first);
    expect(readFileSync(join(dir, 'keys', 'witness-name'), 'utf8')).toBe(`${first}\n`);
    expect(readdirSync(join(dir, 'keys'))).toEqual(['witness-name']);
  });

  it('a damaged kept file is refused, never replaced', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-kept-'));
    dirs.push(dir);
    keptName(dir, 'log-origin', 'svc-ledger.invalid');
    writeFileSync(join(dir, 'keys', 'log-origin'), 'two words\n');
    expect(() => keptName(dir, 'log-origin', 'svc-ledger.invalid')).toThrow(/not hold a valid log origin/);
    expect(readFileSync(join(dir, 'keys', 'log-origin'), 'utf8')).toBe('two words\n');
  });
});
