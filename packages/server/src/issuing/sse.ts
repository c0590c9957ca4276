// An upstream's event stream read as the WHATWG event-stream standard reads it (lines end at CR, LF
// or CRLF; `event:`, `id:`, `retry:`, comments), by eventsource-parser, the parser the standard's
// readers share, so the front sees the events an OpenAI client would see. Only the parse is used
// downstream: the front relays what it parsed, never the upstream's bytes.
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** Why an upstream stream could not be read; the front ends the stream with it, nothing signed. */
export class StreamFailure extends Error {
  override readonly name = 'StreamFailure';
}

/**
 * The events of a stream, in order, read within `cap` bytes; throws StreamFailure for a stream
 * that is not UTF-8, is too large, or fails; a read cancelled by `stop` ends the iteration.
 */
export async function* readEvents(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  cap: number,
  stopped: () => boolean,
): AsyncGenerator<EventSourceMessage> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  let total = 0;
  let endsInCr = false;
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch {
      if (stopped()) return;
      throw new StreamFailure('the upstream connection failed mid-stream');
    }
    if (stopped()) return;
    if (chunk.done) {
      // A CR is a whole line end; the parser holds a last one back in case an LF follows (CRLF).
      if (endsInCr) parser.feed('\n');
      while (queue.length > 0) yield queue.shift()!;
      throw new StreamFailure('the upstream stream ended before its answer did');
    }
    total += chunk.value.length;
    if (total > cap) throw new StreamFailure(`the upstream stream is over ${cap} bytes`);
    let text: string;
    try {
      text = decoder.decode(chunk.value, { stream: true });
    } catch {
      throw new StreamFailure('the upstream stream is not UTF-8');
    }
    if (text !== '') endsInCr = text.endsWith('\r');
    parser.feed(text);
    while (queue.length > 0) yield queue.shift()!;
  }
}

/**
 * One event as this front writes it: its `event:` name when it has one (the Responses API's typed
 * events), `data:` lines (one per line of the data) and a blank line.
 */
export function sseEvent(data: unknown, event?: string): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  // A name is one line by construction here (JSON string members are checked by the reader); a line
  // end in it would start a second field.
  if (event !== undefined && /[\r\n]/.test(event)) throw new Error('an event name is one line');
  return `${event !== undefined ? `event: ${event}\n` : ''}${text
    .split('\n')
    .map((l) => `data: ${l}`)
    .join('\n')}\n\n`;
}
