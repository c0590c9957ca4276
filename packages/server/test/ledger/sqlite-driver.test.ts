// The SQLite driver (#54): Node's own node:sqlite, nothing installed for it. A proof is logged by
// the built CLI on this runtime, no package named better-sqlite3 is left in the tree, and the
// errors the driver raises are told apart as the audit needs: evidence about the stored log (a
// file that is not a database, a table without its columns) against a read that could not be made
// (another connection's lock).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Sqlite } from '../../src/ledger/sqlite/driver.js';
import { isDamage } from '../../src/ledger/store.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** The error `run` throws (the test fails if it throws none). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('the SQLite driver', () => {
  it('the CLI logs a proof on this Node with node:sqlite; no better-sqlite3 is installed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-driver-'));
    const env = { ...process.env, SVC_DATA_DIR: dir };
    expect(spawnSync(process.execPath, [CLI, 'keygen'], { env, encoding: 'utf8' }).status).toBe(0);
    const r = spawnSync(process.execPath, [CLI, 'issue', '--answer', 'a', '--model', 'm', '--logged'], { env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(existsSync(join(dir, 'ledger.sqlite'))).toBe(true);
    for (const name of ['better-sqlite3', 'better-sqlite3-13']) expect(existsSync(join(root, 'node_modules', name))).toBe(false);
  });

  it('a file that is not a database, and a table without its columns, are damage; a lock held elsewhere is not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-driver-'));
    const junk = join(dir, 'junk.sqlite');
    writeFileSync(junk, new Uint8Array(8192).fill(0xa5));
    const notDb = thrown(() => new Sqlite(junk).prepare('SELECT * FROM heads').all());
    expect(isDamage(notDb)).toBe(true);

    const file = join(dir, 'l.sqlite');
    const a = new Sqlite(file, { timeout: 0 });
    a.exec('CREATE TABLE heads(id INTEGER PRIMARY KEY)');
    const noColumn = thrown(() => a.pluck('SELECT MAX(tree_size) FROM heads').get());
    expect(noColumn).toMatchObject({ message: expect.stringMatching(/no such column/) });
    expect(isDamage(noColumn)).toBe(true);
    expect(isDamage(thrown(() => a.prepare('SELECT * FROM no_such_table')))).toBe(true);

    const b = new Sqlite(file, { timeout: 0 });
    a.exec('BEGIN IMMEDIATE');
    const busy = thrown(() => b.exec('BEGIN IMMEDIATE'));
    expect(busy).toMatchObject({ code: 'ERR_SQLITE_ERROR', errcode: 5 });
    expect(isDamage(busy)).toBe(false);
    expect(isDamage(thrown(() => b.prepare('SELEC 1')))).toBe(false);
    a.exec('ROLLBACK');
    a.close();
    b.close();
  });

  it('a transaction commits what its function did, and rolls all of it back when it throws', () => {
    const db = new Sqlite(':memory:');
    db.exec('CREATE TABLE t(x INTEGER)');
    expect(db.transaction(() => db.prepare('INSERT INTO t VALUES (1)').run().changes, 'IMMEDIATE')).toBe(1);
    expect(() =>
      db.transaction(() => {
        db.prepare('INSERT INTO t VALUES (2)').run();
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(db.inTransaction).toBe(false);
    expect(db.pluck('SELECT x FROM t ORDER BY x').all()).toEqual([1]);
    expect(db.pragma('user_version')).toBe(0);
    db.close();
    expect(db.open).toBe(false);
  });
});
