// Answers issued by the library beside a server under test, one at a time, each sealed under a head
// of its own: what `svc issue` does per process, without a process each (a process was about 2 s of
// a busy machine, and a synchronous one stopped the in-process server meanwhile). For tests whose
// subject is what is in the log, not the command that put it there.
import { openIssuer } from '../../src/index.js';

export async function issueEach(dataDir: string, answers: string[], databaseUrl?: string): Promise<void> {
  const issuer = await openIssuer({ dataDir, ...(databaseUrl ? { databaseUrl } : {}), batchSeconds: 0.001, signers: 0 });
  try {
    for (const answer of answers) await issuer.issue({ answer });
  } finally {
    await issuer.close();
  }
}
