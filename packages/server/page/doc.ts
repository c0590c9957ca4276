// The document the page was given, as it was posted: shown, never trusted. Its members are unknown
// until a guard reads them; every judgement about it comes from the core's typed verdict.

/** A posted JSON object: any member may hold anything. */
export type Doc = { readonly [member: string]: unknown };

/** A JSON object (not an array, not null). */
export const isObj = (o: unknown): o is Doc => typeof o === 'object' && o !== null && !Array.isArray(o);

/** A string member, or null. */
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** An object member, or an empty one. */
export const obj = (v: unknown): Doc => (isObj(v) ? v : {});
