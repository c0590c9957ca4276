// Reading a request body without ever holding more than the limit: a declared Content-Length over
// the limit is refused before a byte is read, and a stream that grows past it is cut off.
import type { Readable } from 'node:stream';
import { MAX_BODY_BYTES } from '@svc/core';
import { HttpError } from './errors.js';

export async function readLimited(stream: Readable, declaredLength: string | undefined, limit = MAX_BODY_BYTES): Promise<Uint8Array> {
  if (declaredLength !== undefined) {
    const n = Number(declaredLength);
    if (Number.isFinite(n) && n > limit) throw new HttpError('too_large', `payload over ${limit} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  return new Promise((resolve, reject) => {
    const onData = (chunk: Uint8Array) => {
      total += chunk.length;
      if (total > limit) {
        cleanup();
        stream.pause();
        reject(new HttpError('too_large', `payload over ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      // Not concatBytes(...chunks): a body trickled in one byte per packet is hundreds of thousands
      // of chunks, more than a call may take as arguments.
      const out = new Uint8Array(total);
      let off = 0;
      for (const c of chunks) {
        out.set(c, off);
        off += c.length;
      }
      resolve(out);
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
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
