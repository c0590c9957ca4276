// A database URL as logs and messages show it, kept apart from the driver so naming a database
// does not load it.
/** A database URL with its password replaced, for logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}
