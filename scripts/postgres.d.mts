export function postgresBinDir(): string | null;
export function startPostgres(opts?: { durable?: boolean }): Promise<{
  url: string;
  port: number;
  dir: string;
  pause(): void;
  resume(): void;
  stop(): void;
}>;
