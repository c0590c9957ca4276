export function postgresBinDir(): string | null;
export function startPostgres(opts?: { durable?: boolean }): Promise<{
  url: string;
  port: number;
  dir: string;
  pause(): void;
  resume(): void;
  /** Stops the server's processes (SIGSTOP): a hung machine or partition, as a client sees it. */
  freeze(): void;
  thaw(): void;
  stop(): void;
}>;
