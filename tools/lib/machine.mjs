// The machine a figure was measured on, named beside every benchmark and fuzz campaign.
import os from 'node:os';

export function machine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown cpu';
  return `${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
}
