// Types of sqlite-prebuild.mjs for the server's tests.
export function localSqlitePrebuild(): Record<string, string>;
