// Modules the tests use that ship no types of their own.
declare module 'parse-prometheus-text-format' {
  const parse: (text: string) => unknown;
  export default parse;
}
