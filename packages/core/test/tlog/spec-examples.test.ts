// Every byte example the C2SP specs print (signed-note, tlog-checkpoint, tlog-cosignature,
// tlog-tiles, tlog-proof), read by this implementation.
import { describe, expect, it } from 'vitest';
import { fromBase64, toHex, utf8 } from '../../src/encoding/bytes.js';
import {
  TlogError,
  cosignatureV1Message,
  openNote,
  parseCheckpoint,
  parseNote,
  parseTilePath,
  parseTlogProof,
  parseVkey,
  tilePath,
  tileWidth,
} from '../../src/tlog/index.js';

const FOO_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const FOO_NOTE =
  'This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';
const QUASIMODO =
  'Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n\n— quasimodo.example/salvatore NnugSzTjtVAewIS+Z/iJhUPeFDkO/5QQ2i5ddnGITLlC+EhfLW9oJKONrMouFSQU0xMcXxj99ihAQwaqP3ZekRwNtIc=\n';
const SOFA =
  'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n';
const WITNESS_LINE =
  '— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n';

describe('signed-note examples', () => {
  it('the example vkey parses as Ed25519 with the key ID the spec prints', () => {
    const v = parseVkey(FOO_VKEY);
    expect(v.type).toBe('ed25519');
    expect(v.name).toBe('example.com/foo');
    expect(v.id).toBe(0x530d903a);
    expect(v.vkey).toBe(FOO_VKEY);
  });

  it('the example note verifies under the example vkey', () => {
    const opened = openNote(FOO_NOTE, [parseVkey(FOO_VKEY)]);
    expect(opened.note.text).toBe('This is an example message.\n');
    expect(opened.verified.map((s) => s.name)).toEqual(['example.com/foo']);
  });

  it('one changed byte of the text or signature makes it unverified', () => {
    const bad = FOO_NOTE.replace('example message', 'example massage');
    expect(() => openNote(bad, [parseVkey(FOO_VKEY)])).toThrow(TlogError);
    const sig = FOO_NOTE.replace('Uw2QOkn8', 'Uw2QOkn9');
    expect(() => openNote(sig, [parseVkey(FOO_VKEY)])).toThrowError(/does not verify/);
  });

  it('the poem parses: text with an empty line, split at the last one', () => {
    const n = parseNote(QUASIMODO);
    expect(n.text).toBe('Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n');
    expect(n.signatures).toHaveLength(1);
    expect(n.signatures[0]!.name).toBe('quasimodo.example/salvatore');
    // Without the poet's key the note is unverified, whatever its lines.
    expect(() => openNote(QUASIMODO, [parseVkey(FOO_VKEY)])).toThrowError(/no signature by a known key/);
  });
});

describe('tlog-checkpoint and tlog-cosignature examples', () => {
  it('the checkpoint parses to origin, size and root', () => {
    const n = parseNote(SOFA);
    const c = parseCheckpoint(n.text);
    expect(c.origin).toBe('example.com/behind-the-sofa');
    expect(c.size).toBe(20852163);
    expect(toHex(c.root)).toBe(toHex(fromBase64('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=')!));
    expect(c.extensions).toEqual([]);
  });

  it('the cosigned checkpoint parses; the witness line is a timestamped Ed25519 cosignature of 1679315147', () => {
    const n = parseNote(SOFA + WITNESS_LINE);
    expect(n.signatures.map((s) => s.name)).toEqual(['example.com/behind-the-sofa', 'witness.example.com/w1']);
    const w = n.signatures[1]!.signature;
    expect(w.length).toBe(8 + 64);
    expect(Number(new DataView(w.buffer, w.byteOffset).getBigUint64(0))).toBe(1679315147);
  });

  it('the cosignature/v1 message is byte for byte the one the spec prints', () => {
    const text = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
    expect(cosignatureV1Message(1679315147, text)).toEqual(
      utf8('cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n'),
    );
  });
});

describe('tlog-tiles examples', () => {
  it('index 1234067 is x001/x234/067', () => {
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe('tile/0/x001/x234/067');
    expect(parseTilePath('tile/0/x001/x234/067')).toEqual({ level: 0, index: 1234067, width: 256 });
  });

  it('a tree of 70,000 has 273 full level-0 tiles, then widths 112, 17 (level 1) and 1 (level 2)', () => {
    const s = 70_000;
    expect(tileWidth(0, 272, s)).toBe(256);
    expect(tileWidth(0, 273, s)).toBe(112);
    expect(tileWidth(0, 274, s)).toBe(0);
    expect(tileWidth(1, 0, s)).toBe(256);
    expect(tileWidth(1, 1, s)).toBe(17);
    expect(tileWidth(2, 0, s)).toBe(1);
    expect(tileWidth(3, 0, s)).toBe(0);
  });

  it('a tree of 256 is one full level-0 tile and a level-1 tile of width 1', () => {
    expect(tileWidth(0, 0, 256)).toBe(256);
    expect(tileWidth(0, 1, 256)).toBe(0);
    expect(tileWidth(1, 0, 256)).toBe(1);
  });
});

describe('tlog-proof example', () => {
  const HEAD =
    'c2sp.org/tlog-proof@v1\nextra YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6kYXJ3aW4tYXJ\nindex 73894\ngSKyXoYZUgZ6jduWYrkDOARinOMGJveXjgMkBTcdPlQ=\nB95lDa8R83lS8n0eG+o0buTxRKQTYFi//1U8anccXmA=\nEKNzoDWG8LGC0Yp9o+sv3qllpMP9uHQ9B20KNL+Q1zs=\nRoopEkOdqkYqMB4MJXrbt/hMjOxsVn0IrWjpz1ZMMes=\nAHCioX9nLjsrse6YhjRRmk1WUEirVOLLRoOQ6vfO5vk=\n\n';
  const CHECKPOINT = 'example.com/fancylog\n109482\nsFodV/vSp5O8n9a8QpW6PRY97tfOSW5bsc2Xl/EQi08=\n\n';

  it('its header parses; the printed signatures are elided ("[...]"), so the note is refused as printed', () => {
    const printed = `${HEAD}${CHECKPOINT}— example.com/fancylog hI2DJw[...]1roloI=\n`;
    expect(() => parseTlogProof(printed)).toThrowError(/checkpoint is not valid/);
    // With a well-formed signature line in place of the elided one, every other line is as printed.
    const line = `— example.com/fancylog ${'A'.repeat(88)}\n`;
    const p = parseTlogProof(`${HEAD}${CHECKPOINT}${line}`);
    expect(p.index).toBe(73894);
    expect(p.proof).toHaveLength(5);
    expect(p.extra).toEqual(fromBase64('YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6kYXJ3aW4tYXJ'));
    expect(p.parsed.origin).toBe('example.com/fancylog');
    expect(p.parsed.size).toBe(109482);
  });
});
