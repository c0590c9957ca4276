// Types of node24.mjs for the server's tests.
export const NODE24: string;
export function ensureNode24(o?: { quiet?: boolean }): string | null;
export function ensureNode26(o?: { quiet?: boolean }): string | null;
