// I-JSON (RFC 7493) requires unique member names. JSON.parse keeps the last of two equal names, a
// person or another parser may read the first: one document, two readings. Documents are canonical
// under RFC 8785, which is defined on I-JSON, so a text with a repeated name is refused.

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

// WF-IJSON
/**
 * The JSON Pointer of the first member whose name repeats an earlier one in the same object, or
 * null. `text` must already be valid JSON (JSON.parse accepted it); names compare after unescaping,
 * so `"a"` and `"\u0061"` are the same name. One pass, no recursion: any depth, any size.
 */
export function duplicateMember(text: string): string | null {
  const stack: Frame[] = [];
  const path = () => stack.map((f) => `/${token(f.at)}`).join('');
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (top?.names && top.expectName) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        top.at = name;
        if (top.names.has(name)) return path();
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
    }
  }
  return null;
}
