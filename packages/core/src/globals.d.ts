// The core compiles with `"types": []` and the plain ES2022 lib so that no Node or DOM type can
// leak in. These are the only host APIs it relies on; every target runtime (browsers, Node >= 20,
// Deno, Bun, workerd) provides them. (WebCrypto is reached through globalThis and feature
// detection in crypto/backend.ts, typed there by the few members it uses.)
declare class TextEncoder {
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}
