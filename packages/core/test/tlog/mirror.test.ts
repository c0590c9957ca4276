// tlog-mirror's decisions: the mirror-info body, the checks an add-entries header must pass (in the
// spec's order, each status from its own cause), and the mirror's cosignature on a checkpoint.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyRoot } from '../../src/merkle-entry.js';
import {
  MAX_EXCESS_ENTRIES,
  MIRROR_INFO_TYPE,
  TlogError,
  checkUpload,
  formatCheckpoint,
  formatMirrorInfo,
  logKeygen,
  mirrorCosign,
  noteSigner,
  openNote,
  parseMirrorInfo,
  parseVkey,
  signNote,
  type MirrorLogState,
} from '../../src/tlog/index.js';

const root = (b: number) => new Uint8Array(32).fill(b);
const state = (o: Partial<MirrorLogState> = {}): MirrorLogState => ({
  pending: [
    { size: 600, root: root(6) },
    { size: 300, root: root(3) },
  ],
  mirrored: { size: 256, root: root(2) },
  next: 512,
  ...o,
});
const header = (start: number, end: number) => ({ origin: 'example.test/log', start, end, ticket: new Uint8Array(0) });

describe('mirror-info', () => {
  it('is three newline-terminated lines, and reads back (property)', () => {
    fc.assert(
      fc.property(
        fc.nat(Number.MAX_SAFE_INTEGER),
        fc.nat(Number.MAX_SAFE_INTEGER),
        fc.uint8Array({ maxLength: 40 }),
        (size, next, ticket) => {
          const text = formatMirrorInfo({ size, next, ticket });
          expect(text.split('\n')).toHaveLength(4);
          expect(parseMirrorInfo(text)).toEqual({ size, next, ticket });
        },
      ),
    );
    expect(formatMirrorInfo({ size: 600, next: 512, ticket: new Uint8Array(0) })).toBe('600\n512\n\n');
  });

  it.each([
    ['600\n512\n', 'two lines'],
    ['600\n512\n\n\n', 'four lines'],
    ['600\n512\n', 'no ticket line'],
    ['0600\n512\n\n', 'a leading zero'],
    ['-1\n512\n\n', 'a sign'],
    ['9007199254740992\n0\n\n', '2^53'],
    ['600\n512\nAAF=\n', 'non-canonical base64'],
    ['600\r\n512\n\n', 'a carriage return'],
  ])('refuses %j (%s)', (text) => {
    expect(() => parseMirrorInfo(text)).toThrow(TlogError);
  });
});

describe('checkUpload, in the order tlog-mirror gives', () => {
  it('404 for a log it does not mirror, 422 before any pending checkpoint', () => {
    expect(checkUpload(header(0, 10), undefined)).toMatchObject({ ok: false, status: 404 });
    expect(checkUpload(header(0, 10), state({ pending: [] }))).toMatchObject({ ok: false, status: 422 });
  });

  it('409 with the current pending size for an upload_end it does not know', () => {
    const c = checkUpload(header(512, 700), state());
    expect(c).toEqual({ ok: false, status: 409, body: '600\n512\n\n', contentType: MIRROR_INFO_TYPE });
  });

  it('409 for an upload_end below the mirror checkpoint, though it was once pending', () => {
    expect(checkUpload(header(200, 300), state({ mirrored: { size: 400, root: root(4) } }))).toMatchObject({ status: 409 });
  });

  it('409 with upload_end kept for a start past the next entry, or too many entries resent', () => {
    expect(checkUpload(header(513, 600), state())).toEqual({ ok: false, status: 409, body: '600\n512\n\n', contentType: MIRROR_INFO_TYPE });
    expect(checkUpload(header(512 - MAX_EXCESS_ENTRIES - 1, 600), state())).toMatchObject({ status: 409, body: '600\n512\n\n' });
    expect(checkUpload(header(512 - MAX_EXCESS_ENTRIES, 600), state())).toEqual({ ok: true, checkpoint: { size: 600, root: root(6) } });
  });

  it('proves into the pending checkpoint of that size, an older one, or the mirror checkpoint', () => {
    expect(checkUpload(header(300, 300), state())).toEqual({ ok: true, checkpoint: { size: 300, root: root(3) } });
    expect(checkUpload(header(256, 256), state())).toEqual({ ok: true, checkpoint: { size: 256, root: root(2) } });
  });

  it('accepts exactly the uploads that start at or below next and end at a known size (property)', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), (a, b) => {
        const [start, end] = a <= b ? [a, b] : [b, a];
        const s = state();
        const known = [600, 300, 256].includes(end) && end >= 256;
        const excess = Math.min(end, s.next) - start;
        const c = checkUpload(header(start, end), s);
        expect(c.ok).toBe(known && start <= s.next && excess <= MAX_EXCESS_ENTRIES);
      }),
    );
  });
});

describe('mirrorCosign', () => {
  const log = logKeygen('ed25519', new Uint8Array(32).fill(1));
  const mirror = logKeygen('cosignature/v1', new Uint8Array(32).fill(2));
  const logSigner = noteSigner('example.test/log', log);
  const mirrorSigner = noteSigner('mirror.example.test', mirror);
  const text = formatCheckpoint({ origin: 'example.test/log', size: 0, root: emptyRoot(), extensions: [] });

  it("keeps the log's lines, adds its own, and both open", () => {
    const pending = signNote(text, [logSigner]);
    const { lines, checkpoint } = mirrorCosign(pending, [mirrorSigner], 1_700_000_000);
    expect(lines.startsWith('— mirror.example.test ')).toBe(true);
    expect(checkpoint.endsWith(lines)).toBe(true);
    expect(openNote(checkpoint, [parseVkey(logSigner.vkey)]).note.text).toBe(text);
    expect(openNote(checkpoint, [parseVkey(mirrorSigner.vkey)]).verified).toHaveLength(1);
  });

  it('drops a line under its own name that it did not make now', () => {
    const forged = signNote(text, [logSigner, noteSigner('mirror.example.test', logKeygen('cosignature/v1', new Uint8Array(32).fill(3)))]);
    const { checkpoint } = mirrorCosign(forged, [mirrorSigner], 1_700_000_000);
    expect(checkpoint.split('\n').filter((l) => l.startsWith('— mirror.example.test '))).toHaveLength(1);
    expect(() => mirrorCosign(forged, [mirrorSigner], 0)).toThrow(RangeError);
  });
});
