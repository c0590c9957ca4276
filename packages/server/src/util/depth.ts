// How deep a parsed JSON value nests, counted without recursion: JSON.parse reads any depth, but
// what re-serialises it (JSON.stringify, RFC 8785) recurses, so a value a peer or client nests
// deep enough would exhaust the stack where it is written back out.

/**
 * Whether `value` nests arrays or objects more than `max` deep (a scalar is depth 0).
 *
 * @example
 * ```ts
 * deeperThan(JSON.parse('[[1]]'), 1); // true
 * ```
 */
export function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return false;
}
