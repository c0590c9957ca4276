import { ijsonViolation } from './members.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
/**
 * A parsed JSON object whose members are not yet checked: what bundles and records are before a
 * verifier reads them.
 *
 * @example
 * ```ts
 * const doc: JsonObject = JSON.parse(text);
 * const res = await verifyBundle(doc, { trustedKeys });
 * ```
 */
export type JsonObject = Record<string, unknown>;

export function isObj(x: unknown): x is JsonObject {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

export function has(o: JsonObject, k: string): boolean {
  return Object.hasOwn(o, k);
}

export function isInt(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x);
}

export function isNonNegInt(x: unknown): x is number {
  return isInt(x) && x >= 0;
}

/** A copy of `o` without the named members; built with data properties so `__proto__` stays data. */
export function omit(o: JsonObject, names: readonly string[]): JsonObject {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !names.includes(k)));
}

/** Unicode code points of a string (wire-format s.5 counts excerpts in code points). */
export function codePoints(s: string): string[] {
  return Array.from(s);
}

/** Parse a JSON text that must be an I-JSON object (no repeated member names); null on anything else. */
export function parseObject(text: unknown): JsonObject | null {
  if (typeof text !== 'string') return null;
  try {
    const v: unknown = JSON.parse(text);
    return isObj(v) && ijsonViolation(text) === null ? v : null;
  } catch {
    return null;
  }
}

/**
 * Whether a parsed JSON value nests deeper than `max` arrays or objects. Iterative, so it is itself
 * the guard: a value nested a million deep is measured without a recursive walk (JSON.parse reads
 * any depth; what writes a value back out, JSON.stringify or RFC 8785, recurses).
 *
 * @example
 * ```ts
 * nestedDeeperThan(JSON.parse('[[1]]'), 1); // true
 * ```
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return false;
}
