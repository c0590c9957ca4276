// The core compiles with `"types": []` and the plain ES2022 lib so that no Node or DOM type can
// leak in. These are the only host APIs it relies on; every target runtime (browsers, Node >= 20,
// Deno, Bun, workerd) provides them.
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input?: Uint8Array): string;
}
