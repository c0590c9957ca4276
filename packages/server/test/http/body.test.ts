// The body reader against hostile streams: trickled one byte per chunk, over the limit by one
// byte, declared over the limit, and failing midway.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { readLimited } from '../../src/internal.js';

const chunks = (n: number, size = 1) => Array.from({ length: n }, (_, i) => new Uint8Array(size).fill(i & 255));

describe('readLimited', () => {
  it('a body trickled in 300,000 one-byte chunks is read whole', async () => {
    const out = await readLimited(Readable.from(chunks(300_000)), undefined, 2 * 1024 * 1024);
    expect(out.length).toBe(300_000);
    expect(out[299_999]).toBe(299_999 & 255);
  });

  it('one byte over the limit is too_large; exactly the limit is read', async () => {
    await expect(readLimited(Readable.from(chunks(11, 100)), undefined, 1100)).resolves.toHaveLength(1100);
    await expect(readLimited(Readable.from(chunks(11, 100)), undefined, 1099)).rejects.toMatchObject({ code: 'too_large' });
  });

  it('a declared length over the limit is refused before a byte is read', async () => {
    let read = false;
    const s = new Readable({
      read() {
        read = true;
        this.push(null);
      },
    });
    await expect(readLimited(s, '5000', 1000)).rejects.toMatchObject({ code: 'too_large' });
    expect(read).toBe(false);
  });

  it('a stream that fails midway rejects instead of hanging', async () => {
    const s = new Readable({ read() {} });
    const p = readLimited(s, undefined, 1000);
    s.push(new Uint8Array(10));
    s.destroy(new Error('reset'));
    await expect(p).rejects.toThrow('reset');
  });
});
