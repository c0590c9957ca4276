// One spelling per client address, and the unit a limit counts. A client must not get a second
// window by writing its address another way (`2001:DB8::7`, `2001:db8:0:0::7`, `::ffff:192.0.2.7`,
// `::ffff:c000:207`), nor one per address of the /64 every IPv6 subscriber is handed.
import { DEFAULT_IPV6_PREFIX } from '../config.js';

const MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * The canonical text of an IP address: IPv4 dotted-decimal, IPv4-mapped IPv6 as the IPv4 address,
 * other IPv6 lowercase and compressed (RFC 5952, as the WHATWG URL serialiser writes it), a zone
 * index dropped. Anything that is not an IP address is returned as it came (a limit still counts it).
 *
 * @example
 * ```ts
 * canonicalAddress('2001:DB8:0:0::7'); // '2001:db8::7'
 * canonicalAddress('::ffff:c000:207'); // '192.0.2.7'
 * ```
 */
export function canonicalAddress(raw: string): string {
  const s = raw.trim();
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(s)) return ipv4(s) ?? s;
  const bare = s.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!bare.includes(':') || !/^[0-9a-fA-F:.]+$/.test(bare)) return s;
  let host: string;
  try {
    host = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return s;
  }
  const m = MAPPED.exec(host);
  if (!m) return host;
  const hi = Number.parseInt(m[1]!, 16);
  const lo = Number.parseInt(m[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Dotted-decimal with no leading zeros, or null past 255 (`01.2.3.4` is not read as octal). */
function ipv4(s: string): string | null {
  const parts = s.split('.').map(Number);
  return parts.every((p) => p <= 255) ? parts.join('.') : null;
}

/** The eight 16-bit groups of a canonical IPv6 address. */
function groups(v6: string): number[] {
  const [head, tail] = v6.includes('::') ? v6.split('::') : [v6, undefined];
  const a = head ? head.split(':') : [];
  const b = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - a.length - b.length).fill('0');
  return [...a, ...fill, ...b].map((g) => Number.parseInt(g, 16));
}

/**
 * What a rate limit counts for a client: an IPv4 address itself, an IPv6 address by its leading
 * `prefix` bits (`2001:db8:1:2::/64`). Input is a canonical address (canonicalAddress).
 *
 * @example
 * ```ts
 * limitKey('2001:db8:1:2:aaaa::1', 64); // '2001:db8:1:2::/64'
 * limitKey('192.0.2.7', 64); // '192.0.2.7'
 * ```
 */
export function limitKey(address: string, prefix: number = DEFAULT_IPV6_PREFIX): string {
  if (!address.includes(':') || prefix >= 128) return address;
  const g = groups(address);
  if (g.length !== 8 || g.some((x) => !Number.isInteger(x))) return address;
  const masked = g.map((x, i) => {
    const bits = Math.min(16, Math.max(0, prefix - i * 16));
    return bits === 0 ? 0 : x & (0xffff << (16 - bits)) & 0xffff;
  });
  return `${canonicalAddress(masked.map((x) => x.toString(16)).join(':'))}/${prefix}`;
}

const proxySets = new WeakMap<readonly string[], ReadonlySet<string>>();

/**
 * The trusted proxies in their canonical spellings, computed once per list (it is read on every
 * request and every connection).
 *
 * @example
 * ```ts
 * proxySet(['::ffff:10.0.0.1']).has('10.0.0.1'); // true
 * ```
 */
export function proxySet(trusted: readonly string[]): ReadonlySet<string> {
  let set = proxySets.get(trusted);
  if (!set) {
    set = new Set(trusted.map(canonicalAddress));
    proxySets.set(trusted, set);
  }
  return set;
}
