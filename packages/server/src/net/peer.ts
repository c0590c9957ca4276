// Every answer the server or the CLI reads from a peer over the network (witnesses, tile sources,
// council seats, keys URLs) is read through here: at most a known number of bytes, the largest
// valid answer of its kind, within a deadline that covers the body. A peer that sends more is
// refused, its connection cut, and nothing past the cap is held.

/**
 * The caps, in bytes, by what is read (docs/wire-format.md lists them).
 *
 * - witness: an add-checkpoint answer is cosignature lines, one per key the witness holds (a few
 *   hundred bytes each);
 * - tile: a full level tile is 256 hashes of 32 bytes; an entry bundle 256 entries of the ledger's
 *   32-byte leaves, each with its 2-byte length;
 * - checkpoint: a note, as the core's note reader bounds it (1 MiB of text; 100 signature lines,
 *   an ML-DSA one several KiB);
 * - json: a keys document or a council seat's answer;
 * - completion: an upstream model's chat completion, whole or streamed, through the issuing front
 *   (an answer it can sign is at most 256 Ki characters; logprobs and usage come beside it).
 */
export const PEER_CAPS = {
  witness: 16 * 1024,
  tile: 256 * 34,
  checkpoint: 2 * 1024 * 1024,
  json: 1024 * 1024,
  completion: 4 * 1024 * 1024,
} as const;

/** The deadline, headers and body together, of a CLI read from a tile source or a keys URL. */
export const PEER_DEADLINE_MS = 30_000;

/** A refusal of a peer's answer: over its cap (`too_large`). */
export class PeerAnswerTooLarge extends Error {
  constructor(
    readonly cap: number,
    readonly url: string,
  ) {
    super(`${url} answered more than ${cap} bytes`);
    this.name = 'PeerAnswerTooLarge';
  }
}

/**
 * The body of `res`, read up to `cap` bytes; throws PeerAnswerTooLarge past it (the rest is never
 * read, and the stream is cancelled). `signal` is the deadline given to `fetch`: it covers the body
 * here too, by cancelling the read itself (throwing the signal's reason), not only through fetch.
 * A fetch follows its signal over the body through its own internals (Node's keeps the link
 * through a weak reference: nodejs/node#55428), and an injected fetch may not follow it at all; a
 * peer that sends its headers and then nothing must not hold a read past the deadline.
 *
 * @example
 * ```ts
 * const signal = AbortSignal.timeout(5_000);
 * const res = await fetch(url, { signal });
 * const bytes = await readCapped(res, PEER_CAPS.tile, url, signal);
 * ```
 */
export async function readCapped(res: Response, cap: number, url: string, signal: AbortSignal): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > cap) {
    await res.body?.cancel().catch(() => undefined);
    throw new PeerAnswerTooLarge(cap, url);
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  // A read the deadline cancels ends as `done`: the answer is then refused, never taken as whole.
  const cancel = () => void reader.cancel(signal.reason).catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) break;
      total += value.byteLength;
      if (total > cap) {
        await reader.cancel().catch(() => undefined);
        throw new PeerAnswerTooLarge(cap, url);
      }
      chunks.push(value);
    }
  } catch (e) {
    cancel();
    throw e;
  } finally {
    signal.removeEventListener('abort', cancel);
  }
  return Buffer.concat(chunks, total);
}

/** readCapped as UTF-8 text (malformed sequences replaced: callers parse strictly after). */
export async function textCapped(res: Response, cap: number, url: string, signal: AbortSignal): Promise<string> {
  return new TextDecoder().decode(await readCapped(res, cap, url, signal));
}
