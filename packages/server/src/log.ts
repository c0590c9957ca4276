// Structured logs: one JSON line per event. Request bodies are never logged.
export type Logger = (event: string, fields?: Record<string, unknown>) => void;

export function jsonLogger(enabled: boolean, write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Logger {
  if (!enabled) return () => {};
  return (event, fields = {}) => write(JSON.stringify({ ts: new Date().toISOString(), event, ...fields }));
}
