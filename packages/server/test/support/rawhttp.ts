// A raw-socket client for hostile-input tests: sends exact bytes, reads until the server closes or
// a response is complete, and never throws for what the server does.
import { connect, type Socket } from 'node:net';

export interface RawResult {
  /** Status of the first response, or null when none arrived. */
  status: number | null;
  text: string;
  /** The server reset or closed before a response was complete. */
  reset: boolean;
  /** Nothing ended the exchange before the timeout. */
  timedOut: boolean;
}

export function rawRequest(
  port: number,
  data: Uint8Array | string | (Uint8Array | string)[],
  opts: { timeoutMs?: number; host?: string; head?: boolean } = {},
): Promise<RawResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let reset = false;
    const sock: Socket = connect(port, opts.host ?? '127.0.0.1');
    let timedOut = false;
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      sock.destroy();
      resolve({ status: m ? Number(m[1]) : null, text, reset, timedOut });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      finish();
    }, opts.timeoutMs ?? 5000);
    sock.on('data', (c) => {
      chunks.push(c);
      if (responseComplete(Buffer.concat(chunks).toString('latin1'), opts.head)) finish();
    });
    sock.on('error', () => {
      reset = true;
      finish();
    });
    sock.on('close', finish);
    sock.on('connect', () => {
      for (const part of Array.isArray(data) ? data : [data]) if (!sock.destroyed) sock.write(part);
    });
  });
}

/** Whether `text` holds one whole response; `head`: the request was HEAD, so no body follows. */
export function responseComplete(text: string, head = false): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const headers = text.slice(0, end);
  if (head || /^HTTP\/1\.[01] (1\d\d|204|304)/.test(headers)) return true;
  const len = /\r\ncontent-length: *(\d+)/i.exec(headers);
  if (len) return text.length - end - 4 >= Number(len[1]);
  if (/\r\ntransfer-encoding: *chunked/i.test(headers)) return text.endsWith('0\r\n\r\n');
  return false;
}
