// Configuration is validated before anything is created: a typo never silently means "on", and a
// bad port refuses to start before keys or a ledger are written.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/internal.js';

const CLI = fileURLToPath(new URL('../bin/svc.mjs', import.meta.url));

describe('configuration', () => {
  it.each([
    [{ SVC_LEDGER: 'flase' }, /SVC_LEDGER must be one of/],
    [{ SVC_BRIDGE: 'maybe' }, /SVC_BRIDGE/],
    [{ PORT: '70000' }, /port must be an integer from 0 to 65535/],
    [{ PORT: 'abc' }, /PORT must be a non-negative integer/],
    [{ SVC_WORKERS: '-1' }, /SVC_WORKERS/],
    [{ SVC_SHUTDOWN_SECONDS: '1e3' }, /SVC_SHUTDOWN_SECONDS/],
    [{ SVC_TRUSTED_PROXIES: 'proxy.example' }, /IP addresses/],
    [{ SVC_DATABASE_URL: 'mysql://db/ledger' }, /SVC_DATABASE_URL must be a postgres/],
    [{ SVC_DATABASE_URL: 'not a url' }, /SVC_DATABASE_URL must be a postgres/],
    [{ SVC_LEDGER_BATCH_SECONDS: 'soon' }, /SVC_LEDGER_BATCH_SECONDS/],
    [{ SVC_LEDGER_CHECK_SHARE: '0' }, /SVC_LEDGER_CHECK_SHARE must be a share from 0.01 to 1/],
    [{ SVC_LEDGER_CHECK_SHARE: '1.5' }, /SVC_LEDGER_CHECK_SHARE/],
    [{ SVC_LEDGER_CHECK_SHARE: '10%' }, /SVC_LEDGER_CHECK_SHARE/],
  ])('%j is refused with a message naming it', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('the background check takes a tenth of a core unless told otherwise', () => {
    expect(loadConfig({}).ledgerCheckShare).toBe(0.1);
    expect(loadConfig({ SVC_LEDGER_CHECK_SHARE: '1' }).ledgerCheckShare).toBe(1);
    expect(loadConfig({ SVC_LEDGER_CHECK_SHARE: '0.25' }).ledgerCheckShare).toBe(0.25);
  });

  it('booleans accept the listed words in any case', () => {
    expect(loadConfig({ SVC_LEDGER: 'OFF' }).ledger).toBe(false);
    expect(loadConfig({ SVC_LEDGER: 'Yes' }).ledger).toBe(true);
    expect(loadConfig({}).ledger).toBe(true);
  });

  it.each([
    [['serve', '--port', 'abc'], /--port must be an integer/],
    [['serve', '--port', '99999'], /--port must be an integer/],
    [['serve', '--database-url', 'sqlite:///tmp/x'], /must be a postgres/],
    [['issue', '--answer', 'a', '--database-url', 'http://db'], /must be a postgres/],
  ])('svc %j exits 2 before writing keys or a ledger', (args, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
    const r = spawnSync(process.execPath, [CLI, ...args, '--data-dir', dir], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('SVC_LEDGER=flase exits 2 before writing anything', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
    const r = spawnSync(process.execPath, [CLI, 'serve', '--data-dir', dir], {
      encoding: 'utf8',
      env: { ...process.env, SVC_LEDGER: 'flase' },
    });
    expect(r.status).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('svc --version prints the package version', () => {
    const r = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
  });
});
