declare module '*?raw' {
  const text: string;
  export default text;
}
interface ImportMeta {
  glob(pattern: string, options?: Record<string, unknown>): Record<string, unknown>;
}
