// What one client may hold of a server process: a bounded number of open connections per address
// (per IPv6 prefix), a bounded number of answers queued on one connection (pipelining), and a
// deadline for taking each answer. A client that sends and never reads must not pin memory.
import type { Server } from 'node:http';
import { Server as TlsServer } from 'node:https';
import type { Socket } from 'node:net';
import { canonicalAddress, limitKey, proxySet } from './address.js';

/**
 * Requests one connection may have unanswered at once. Browsers never pipeline and HTTP clients
 * that do keep a handful in flight; a connection past this is a client that does not read, and is
 * closed.
 */
export const MAX_PIPELINED = 16;

/**
 * Refuse (close at once) a connection that would take a client address past `perIp` open
 * connections. Trusted proxies carry many clients and are not capped.
 *
 * @example
 * ```ts
 * capConnections(server, { perIp: 64, trustedProxies: [], ipv6Prefix: 64 });
 * ```
 */
export function capConnections(
  server: Server,
  o: { perIp: number; trustedProxies: string[]; ipv6Prefix?: number; onRefused?: (key: string) => void },
): void {
  if (o.perIp <= 0) return;
  const proxies = proxySet(o.trustedProxies);
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = canonicalAddress(socket.remoteAddress ?? 'unknown');
    if (proxies.has(ip)) return;
    const key = limitKey(ip, o.ipv6Prefix);
    const n = open.get(key) ?? 0;
    if (n >= o.perIp) {
      socket.destroy();
      o.onRefused?.(key);
      return;
    }
    open.set(key, n + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
}

/**
 * Offset just past the first header block end (`\n\r?\n`, as llhttp accepts) at or after `from`,
 * or the chunk's length when there is none.
 */
export function nextHeaderEnd(chunk: Uint8Array, from: number): number {
  for (let nl = chunk.indexOf(10, from); nl >= 0; nl = chunk.indexOf(10, nl + 1)) {
    if (chunk[nl + 1] === 10) return nl + 2;
    if (chunk[nl + 1] === 13 && chunk[nl + 2] === 10) return nl + 3;
  }
  return chunk.length;
}

/**
 * Hand Node's HTTP parser each received chunk one request head at a time. Node parses a whole
 * chunk before anyone can act: 1,000 pipelined requests arriving in 26 KB made 1,000 requests and
 * answers before the pipelining bound closed the connection (round five, row 12: 200 such
 * connections added 470 MiB). Fed a head at a time, the parser stops as soon as the bound closes
 * the connection, and when Node pauses a connection whose answers are not read, the rest of the
 * chunk goes back to the socket (unshift) to be parsed once it resumes. So what one connection
 * makes the server hold is MAX_PIPELINED requests, whatever arrives in one chunk.
 *
 * Adding a 'data' listener is the public way to take a socket back from Node's in-C++ reading; the
 * parser's own listener is then called with the slices. A body is sliced only where it holds a
 * blank line, which changes nothing the parser sees. Upgrades are not served: Node closes such a
 * connection, and slicing stops at a closed socket.
 */
// WF-PIPELINE
export function parseOneRequestAtATime(server: Server): void {
  const event = server instanceof TlsServer ? 'secureConnection' : 'connection';
  server.on(event, (socket: Socket) => {
    const parser = socket.listeners('data') as Array<(chunk: Buffer) => void>;
    if (parser.length === 0) return;
    socket.removeAllListeners('data');
    socket.on('data', (chunk: Buffer) => {
      for (let at = 0; at < chunk.length; ) {
        if (socket.destroyed) return;
        if (socket.isPaused()) {
          socket.unshift(chunk.subarray(at));
          return;
        }
        const end = nextHeaderEnd(chunk, at);
        const part = chunk.subarray(at, end);
        at = end;
        for (const f of parser) f.call(socket, part);
      }
    });
  });
}

const queued = new WeakMap<Socket, number>();

/**
 * Count a request against its connection's queue; false (and the connection closed) past
 * MAX_PIPELINED unanswered requests. The count drops as each answer is sent or abandoned.
 */
export function admitPipelined(socket: Socket, onDone: (fn: () => void) => void, max: number = MAX_PIPELINED): boolean {
  const n = (queued.get(socket) ?? 0) + 1;
  queued.set(socket, n);
  if (n <= max) {
    onDone(() => queued.set(socket, (queued.get(socket) ?? 1) - 1));
    return true;
  }
  if (n === max + 1) cut(socket);
  return false;
}

/**
 * Close a connection whose pipelined requests are not read. Node has already parsed the whole
 * chunk they came in (a thousand requests in 38 KB) and, when the socket closes, aborts each one
 * with an error whose stack trace it formats: about 7 us apiece, 700 ms of the event loop for a
 * wave of 100 such connections. Those errors reach no one, so they are made without a stack.
 */
function cut(socket: Socket): void {
  const limit = Error.stackTraceLimit;
  const restore = () => {
    Error.stackTraceLimit = limit;
  };
  socket.prependOnceListener('close', () => {
    Error.stackTraceLimit = 0;
    setImmediate(restore);
  });
  socket.once('close', restore);
  socket.destroy();
}

interface Watch {
  timer: ReturnType<typeof setTimeout> | null;
  /** Answers ended on this connection and not yet taken by the client. */
  pending: number;
}
const watches = new WeakMap<Socket, Watch>();

/**
 * One send deadline per connection: while any answer ended on it has not been taken (flushed to the
 * client), the client must take one within `ms` of the last it took, or the connection is closed.
 * The timer holds the socket alone and is cleared when it closes, so a cut connection frees at once
 * everything it held (its parsed requests included), not when a deadline would have passed.
 */
export function sendDeadline(socket: Socket, res: { once(e: 'finish', f: () => void): unknown }, ms: number, onTimeout: () => void): void {
  let w = watches.get(socket);
  if (!w) {
    const watch: Watch = { timer: null, pending: 0 };
    w = watch;
    watches.set(socket, watch);
    socket.once('close', () => {
      if (watch.timer) clearTimeout(watch.timer);
      watch.timer = null;
    });
  }
  const watch = w;
  if (socket.destroyed) return;
  watch.pending++;
  if (!watch.timer) {
    watch.timer = setTimeout(() => {
      watch.timer = null;
      onTimeout();
      socket.destroy();
    }, ms);
    watch.timer.unref();
  }
  res.once('finish', () => {
    watch.pending--;
    if (!watch.timer) return;
    if (watch.pending > 0) watch.timer.refresh();
    else {
      clearTimeout(watch.timer);
      watch.timer = null;
    }
  });
}
