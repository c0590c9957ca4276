// Reading a request body without ever holding more than the limit: a declared Content-Length over
// the limit is refused before a byte is read, and a stream that grows past it is cut off.
import type { Readable } from 'node:stream';
import { MAX_BODY_BYTES } from '@svc/core';
import { HttpError } from './errors.js';

// WF-BODIES
/**
 * The bytes of request bodies held in memory across all connections at once. Each request holds
 * what it has received until its answer is sent; past the bound, uploads are answered 503 with
 * Retry-After instead of growing the process (a thousand uploads stalled one byte short of 2 MB
 * would otherwise hold 2 GB).
 */
export class BodyBudget {
  private used = 0;
  constructor(readonly bytes: number) {}
  get held(): number {
    return this.used;
  }
  /** Whether `n` more bytes fit; if so they are held. */
  take(n: number): boolean {
    if (this.used + n > this.bytes) return false;
    this.used += n;
    return true;
  }
  release(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
  /** Whether a body of `n` bytes could fit now. */
  fits(n: number): boolean {
    return this.used + n <= this.bytes;
  }
}

export function overloaded(): HttpError {
  return new HttpError('unavailable', 'too many request bodies in flight; retry shortly', { retryAfter: 1 });
}

/**
 * A body's chunks joined, `total` bytes. Not concatBytes(...chunks): a body trickled in one byte
 * per packet is hundreds of thousands of chunks, more than a call may take as arguments.
 */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

// LIMIT-BODY: 2 MB, refused before reading when declared, cut off when a stream grows past it.
/**
 * Read a body of at most `limit` bytes. `hold(n)` is asked before each chunk is kept (and, with a
 * declared length, whether that length could fit at all); a refusal is a 503.
 */
export async function readLimited(
  stream: Readable,
  declaredLength: string | undefined,
  limit = MAX_BODY_BYTES,
  hold?: { take(n: number): boolean; fits(n: number): boolean },
): Promise<Uint8Array> {
  if (declaredLength !== undefined) {
    const n = Number(declaredLength);
    if (Number.isFinite(n) && n > limit) throw new HttpError('too_large', `payload over ${limit} bytes`);
    if (hold && Number.isFinite(n) && !hold.fits(n)) throw overloaded();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  return new Promise((resolve, reject) => {
    const onData = (chunk: Uint8Array) => {
      total += chunk.length;
      if (total > limit || (hold && !hold.take(chunk.length))) {
        cleanup();
        stream.pause();
        reject(total > limit ? new HttpError('too_large', `payload over ${limit} bytes`) : overloaded());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(joinChunks(chunks, total));
    };
    // A body cut off (the client went away, the request deadline passed) is the client's doing.
    const onError = (e: Error) => {
      cleanup();
      reject(new HttpError('invalid_request', `request body not received whole: ${e.message}`));
    };
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}
