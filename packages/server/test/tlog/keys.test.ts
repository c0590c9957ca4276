// Log keys are published and rotated like the other keys: a rotated key stays in the vkeys (after
// the current ones), the checkpoint is signed by the new key only, and the origin does not change.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { namesFor } from '@svc/core';
import { sha256, toHex, utf8 } from '@svc/core/primitives';
import fc from 'fast-check';
import { checkSignature, formatCheckpoint, logKeygen, makeSignature, openNote, parseVkey, signedMessage } from '@svc/core/tlog';
import { Keyring, checkpointer, loadConfig, logOrigin, logRoles, nativeEd25519Sign, nativeNoteVerify } from '../../src/internal.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('log keys', () => {
  it('rotation keeps the old vkey published after the current ones; checkpoints use the new key; the origin stays', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-logkeys-'));
    dirs.push(dir);
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    const keys = join(dir, 'keys');
    Keyring.generate(keys);
    const origin = logOrigin(cfg, namesFor());
    expect(readFileSync(join(keys, 'log-origin'), 'utf8').trim()).toBe(origin);
    const head = { tree_size: 1, root_hash: toHex(sha256(utf8('r'))), timestamp: 1_767_225_600_123 };
    const before = checkpointer(Keyring.load(keys).ring, origin, logRoles(cfg));
    Keyring.generate(keys, { roles: ['log-mldsa44'], rotate: true });
    const after = checkpointer(Keyring.load(keys).ring, logOrigin(cfg, namesFor()), logRoles(cfg));
    expect(after.origin).toBe(origin);
    const was = before.vkeys().trimEnd().split('\n');
    const now = after.vkeys().trimEnd().split('\n');
    expect(now).toHaveLength(4);
    expect(now[3]).toBe(was[0]); // the retired ML-DSA-44 key, last
    expect(now.slice(1, 3)).toEqual(was.slice(1, 3));
    expect(parseVkey(now[0]).type).toBe('subtree/v1');
    const note = after.sign(head);
    expect(openNote(note, [parseVkey(now[0])]).verified).toHaveLength(1);
    expect(() => openNote(note, [parseVkey(was[0]!)])).toThrow(/no signature by a known key/);
  });

  it('a damaged keys/log-origin is refused, and SVC_LOG_ORIGIN overrides it; a bad SVC_LOG_ORIGIN is a config error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-logkeys-'));
    dirs.push(dir);
    expect(logOrigin(loadConfig({ SVC_DATA_DIR: dir, SVC_LOG_ORIGIN: 'example.com/ledger' }), namesFor())).toBe('example.com/ledger');
    expect(() => loadConfig({ SVC_DATA_DIR: dir, SVC_LOG_ORIGIN: 'has space' })).toThrow(/SVC_LOG_ORIGIN/);
    expect(() => loadConfig({ SVC_DATA_DIR: dir, SVC_LOG_ORIGIN: 'a+b' })).toThrow(/SVC_LOG_ORIGIN/);
    expect(() => loadConfig({ SVC_DATA_DIR: dir, SVC_LOG_ORIGIN: 'x'.repeat(256) })).toThrow(/SVC_LOG_ORIGIN/);
    const cfg = loadConfig({ SVC_DATA_DIR: dir });
    logOrigin(cfg, namesFor());
    writeFileSync(join(dir, 'keys', 'log-origin'), 'two words\n');
    expect(() => logOrigin(cfg, namesFor())).toThrow(/not hold a valid log origin/);
  });
});

describe('native note crypto (OpenSSL) agrees with the core', () => {
  it('Ed25519: OpenSSL signs the same bytes as noble, and verifies exactly what noble verifies, mutations included', () => {
    const key = logKeygen('cosignature/v1', sha256(utf8('native-ed')));
    const sign = nativeEd25519Sign(key.secretKey)!;
    expect(sign).not.toBeNull();
    const raw = nativeNoteVerify('cosignature/v1', key.publicKey)!;
    const text = formatCheckpoint({ origin: 'native.test/log', size: 5, root: sha256(utf8('r')), extensions: [] });
    const msg = signedMessage('cosignature/v1', 'w', text, 77);
    const nobleSig = makeSignature('cosignature/v1', 'w', key.secretKey, text, 77);
    expect(toHex(makeSignature('cosignature/v1', 'w', key.secretKey, text, 77, sign))).toBe(toHex(nobleSig));
    fc.assert(
      fc.property(fc.nat(nobleSig.length - 1), fc.integer({ min: 0, max: 255 }), (i, x) => {
        const m = nobleSig.slice();
        m[i] = m[i]! ^ x;
        const noble = checkSignature('cosignature/v1', 'w', key.publicKey, text, m).ok;
        expect(checkSignature('cosignature/v1', 'w', key.publicKey, text, m, raw).ok).toBe(noble);
      }),
      { numRuns: 300, seed: 4 },
    );
    expect(raw(msg, nobleSig.subarray(8))).toBe(true);
  });
});
