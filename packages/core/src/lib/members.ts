// I-JSON (RFC 7493) requires unique member names. JSON.parse keeps the last of two equal names, a
// person or another parser may read the first: one document, two readings. Documents are canonical
// under RFC 8785, which is defined on I-JSON, so a text with a repeated name is refused. The same
// holds for numbers: I-JSON numbers are what an IEEE 754 double holds; a literal a double cannot
// hold exactly (9007199254740993, 1.0000000000000001) is read one way here and another by a parser
// with exact integers or decimals, while its canonical form (and so its signature) is the double's.

/** A JSON Pointer (RFC 6901) token. */
function token(s: string | number): string {
  return String(s).replaceAll('~', '~0').replaceAll('/', '~1');
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index of the quote that closes the string whose opening quote is at `open`. */
function stringEnd(text: string, open: number): number {
  let i = open + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return text.length;
    let slashes = 0;
    for (let k = q - 1; k > open && text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q;
    i = q + 1;
  }
}

interface Frame {
  /** Member names seen so far (objects), or null (arrays). */
  names: Set<string> | null;
  /** The current member name or element index. */
  at: string | number;
  expectName: boolean;
}

const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A decimal literal as sign, significant digits and exponent (`-12.50e1` and `-125` alike). */
function decimal(lit: string): string | null {
  const m = NUMBER.exec(lit);
  if (!m) return null;
  let digits = `${m[2]}${m[3] ?? ''}`.replace(/^0+/, '');
  if (digits === '') return '0';
  let exp = Number(m[4] ?? 0) - (m[3]?.length ?? 0);
  const trimmed = digits.replace(/0+$/, '');
  exp += digits.length - trimmed.length;
  digits = trimmed;
  return `${m[1]}${digits}e${exp}`;
}

/**
 * Whether a JSON number literal denotes exactly the value its double prints as (the shortest
 * round-trip form, which RFC 8785 canonicalises and signatures cover): `1.0`, `0.1`, `1e2` do;
 * `9007199254740993`, `1.0000000000000001`, `1e400` do not.
 *
 * @example
 * ```ts
 * exactNumber('9007199254740992'); // true
 * exactNumber('9007199254740993'); // false
 * ```
 */
export function exactNumber(lit: string): boolean {
  const n = Number(lit);
  return Number.isFinite(n) && decimal(lit) === decimal(String(n).replace('e+', 'e'));
}

/** What makes a JSON text other than I-JSON: a repeated member name, or a number no double holds. */
export interface IJsonViolation {
  kind: 'repeated' | 'inexact_number';
  /** The JSON Pointer of the member or element. */
  at: string;
}

// WF-IJSON
/**
 * The first violation of I-JSON in `text`, or null: a member name that repeats an earlier one in
 * the same object (names compare after unescaping, so `"a"` and `"\u0061"` are one name), or a
 * number literal a double cannot hold exactly. `text` must already be valid JSON (JSON.parse
 * accepted it). One pass, no recursion: any depth, any size.
 *
 * @example
 * ```ts
 * ijsonViolation('{"a":1,"a":2}'); // { kind: 'repeated', at: '/a' }
 * ijsonViolation('{"n":9007199254740993}'); // { kind: 'inexact_number', at: '/n' }
 * ```
 */
export function ijsonViolation(text: string): IJsonViolation | null {
  const stack: Frame[] = [];
  const path = () => stack.map((f) => `/${token(f.at)}`).join('');
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (top?.names && top.expectName) {
        // Only a name with an escape needs reading as JSON; the rest are their own text.
        const raw = text.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        top.at = name;
        if (top.names.has(name)) return { kind: 'repeated', at: path() };
        top.names.add(name);
        top.expectName = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      stack.push({ names: new Set(), at: '', expectName: true });
    } else if (c === 0x5b /* [ */) {
      stack.push({ names: null, at: 0, expectName: false });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1]!;
      if (top.names) top.expectName = true;
      else top.at = (top.at as number) + 1;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && /[0-9eE.+-]/.test(text[end]!)) end++;
      if (!exactNumber(text.slice(i, end))) return { kind: 'inexact_number', at: path() };
      i = end - 1;
    }
  }
  return null;
}

/**
 * The JSON Pointer of the first member whose name repeats an earlier one in the same object, or
 * null (see ijsonViolation, which also reports numbers).
 *
 * @example
 * ```ts
 * duplicateMember('{"a":1,"b":{"c":1,"c":2}}'); // '/b/c'
 * ```
 */
export function duplicateMember(text: string): string | null {
  const v = ijsonViolation(text);
  return v?.kind === 'repeated' ? v.at : null;
}
