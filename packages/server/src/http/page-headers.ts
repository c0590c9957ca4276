// The verifier page's response headers: its own Content-Security-Policy (the hashes the page build
// wrote into its meta tag, so the page works the same opened from disk) plus what only a header can
// say: that no other site may frame it, and the usual hardening.

const META = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/;

/** Without a policy in the page, nothing runs: a page build that lost its meta tag fails closed. */
const FALLBACK = "default-src 'none'";

let last: { html: string; headers: Record<string, string> } | null = null;

/**
 * Headers for serving `html`: CSP from its meta tag with `frame-ancestors 'none'`, X-Frame-Options,
 * Referrer-Policy, Cross-Origin-Opener-Policy and Permissions-Policy.
 *
 * @example
 * ```ts
 * pageHeaders(html)['content-security-policy']; // "default-src 'none'; script-src 'sha256-…'; …; frame-ancestors 'none'"
 * ```
 */
export function pageHeaders(html: string): Record<string, string> {
  if (last?.html === html) return last.headers;
  const policy = META.exec(html)?.[1] ?? FALLBACK;
  const headers = {
    'content-security-policy': `${policy}; frame-ancestors 'none'`,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  };
  last = { html, headers };
  return headers;
}
