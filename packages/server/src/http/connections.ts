// What one client may hold of a server process: a bounded number of open connections per address
// (per IPv6 prefix), a bounded number of answers queued on one connection (pipelining), and a
// deadline for taking each answer. A client that sends and never reads must not pin memory.
import type { Server } from 'node:http';
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
