// Modules the tests use that ship no types of their own.
declare module 'parse-prometheus-text-format' {
  const parse: (text: string) => unknown;
  export default parse;
}

// What the page tests read of the page's window: the page's own flag (page/app.ts declares it for
// the page), a script the CSP must refuse to have run, and axe-core once injected.
interface Window {
  __verifierReady?: boolean;
  __injected?: boolean;
  axe: {
    run(
      context: Document,
      options: { resultTypes: string[] },
    ): Promise<{ violations: { id: string; impact?: string | null; nodes: unknown[] }[] }>;
  };
}
